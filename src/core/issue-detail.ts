import type { StandardIssue } from './standard-schema.js';

/**
 * The client-facing sentence for one schema issue. Library messages can quote the input
 * (`received "hunter2"`), so they are never sent as they are.
 *
 * @example
 * issueDetail({ message: 'Invalid input: expected string, received number' }); // 'is invalid'
 */
export function issueDetail(_issue: StandardIssue): string {
  return 'is invalid';
}
