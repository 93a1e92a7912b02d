/**
 * The Stryker test runner of `npm run mutation`: Stryker's vitest runner, with one change. A test file
 * that fails to load under a mutant (its module throws at import, or a hook outside any test fails)
 * reports no test at all, and the vitest runner would count the mutant as survived; here it counts as
 * a failed test, so the mutant is killed, as the file's failure in `vitest run` would show.
 *
 * @example
 * // in a Stryker config
 * { plugins: ['@stryker-mutator/vitest-runner', './scripts/mutation-runner.mjs'], testRunner: 'vitest-load-checked' }
 */
import { commonTokens, declareFactoryPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import { DryRunStatus, TestStatus } from '@stryker-mutator/api/test-runner';
import { strykerPlugins as vitestPlugins } from '@stryker-mutator/vitest-runner';

const vitestFactory = vitestPlugins.find((plugin) => plugin.name === 'vitest').factory;

/** The file-level errors of the last run: a file whose own result failed (its load, or a hook) rather than one of its tests. */
function fileFailures(vitest) {
  const failures = [];
  for (const file of vitest.state.getFiles()) {
    const errors = file.result?.errors ?? [];
    if (file.result?.state !== 'fail' || errors.length === 0) continue;
    const message = errors.map((error) => error?.stack ?? error?.message ?? String(error)).join('\n');
    failures.push({ id: `${file.filepath}#file`, name: `${file.name} (the file itself)`, status: TestStatus.Failed, failureMessage: message, timeSpentMs: 0 });
  }
  return failures;
}

function createLoadCheckedRunner(injector) {
  const runner = vitestFactory(injector);
  // `run` and `ctx` are the vitest runner's own (the version is pinned in package.json); both dry and mutant runs go through `run`.
  const run = runner.run.bind(runner);
  runner.run = async (options) => {
    const result = await run(options);
    if (result.status !== DryRunStatus.Complete) return result;
    const failures = fileFailures(runner.ctx);
    return failures.length === 0 ? result : { ...result, tests: [...result.tests, ...failures] };
  };
  return runner;
}
createLoadCheckedRunner.inject = tokens(commonTokens.injector);

export const strykerPlugins = [declareFactoryPlugin(PluginKind.TestRunner, 'vitest-load-checked', createLoadCheckedRunner)];
