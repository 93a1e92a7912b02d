export type { ApiRequest, ApiResponse, ErrorInfo, HeaderRecord, QueryRecord } from './core/contract.js';
export { METHODS, STATUS_TEXT, statusText, isEmptyBodyStatus, type Method } from './core/http.js';
export { ERROR_CODES, type ErrorCode } from './core/error-codes.js';
export {
  HttpError,
  BadRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  MethodNotAllowedError,
  NotAcceptableError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ConflictError,
  GoneError,
  PreconditionFailedError,
  UnprocessableContentError,
  PreconditionRequiredError,
  TooManyRequestsError,
  ServiceUnavailableError,
  InternalServerError,
  isHttpError,
  problemOf,
  type HttpErrorOptions,
  type UnauthorizedOptions,
  type RetryOptions,
  type InputIssue,
  type IssueLocation,
  type ProblemDetails,
} from './core/errors.js';
export {
  OUTCOMES,
  MEANINGS,
  DEFAULT_STATUSES,
  SUCCESS_OUTCOMES,
  ERROR_OUTCOMES,
  type Outcome,
  type OutcomeRow,
  type ErrorOutcome,
  type SuccessOutcome,
} from './core/outcomes.js';
export {
  createStatusPolicy,
  type Operation,
  type StatusPolicy,
  type StatusPolicyOverrides,
  type UnacceptablePolicy,
} from './core/policy.js';
export { buildPath, type PathParams } from './core/path.js';
export { createRouter, type Router, type Route, type RouteMatch } from './core/router.js';
export type { InferInput, InferOutput, StandardSchema, StandardIssue, StandardResult } from './core/standard-schema.js';
export type { PartSchema } from './core/validation.js';
export { json, text, type Serializer } from './formats/formats.js';
export type { RawBody } from './core/body.js';
export { endpoint } from './definitions/endpoint.js';
export { defineEndpoint } from './definitions/endpoint-checks.js';
export {
  type Authenticated,
  type Authorize,
  type BodyOption,
  type ChosenOutcome,
  type ConditionalOption,
  type Context,
  type CurrentItem,
  type DeclaredError,
  type DeclaredErrors,
  type Endpoint,
  type EndpointFacts,
  type EndpointConfig,
  type EndpointContext,
  type Guard,
  type ListContext,
  type ListConventions,
  type Principal,
  type Register,
  type Reply,
  type ResponseSchema,
  type ResultFilter,
  type ResultOf,
} from './core/endpoint.js';
export { collection, type ChildParam, type Collection, type CollectionFacts } from './definitions/collection.js';
export {
  COLLECTION_OPERATIONS,
  type ChildParams,
  type CollectionDefinition,
  type CollectionOperation,
  type FilterOf,
  type ItemParams,
  type OperationDeclarations,
  type OperationDefinition,
  type OwnedOperation,
  type OwnerOption,
  type OwnerRule,
  type OwnerScope,
} from './definitions/collection-definition.js';
export type { CursorValue, Page, PageOption, PageRequest, SortField } from './conventions/lists/lists.js';
export type { Validators } from './conventions/conditional/conditions.js';
export { mergePatch } from './conventions/merge-patch/merge-patch.js';
export {
  createApi,
  createEndpointHandler,
  type Answer,
  type EndpointHandlerOptions,
  type Api,
  type ApiFacts,
  type ApiDocument,
  type ApiOptions,
  type RespondOptions,
  type Resource,
  type RouteInfo,
} from './core/api.js';
export type { ProblemBody, RuntimeOptions } from './core/settings.js';
export type { CorsOptions } from './conventions/cors/cors.js';
export {
  lintPath,
  lintPaths,
  ConventionError,
  isConventionError,
  type NamingFinding,
  type NamingMode,
  type NamingOptions,
  type NamingRule,
} from './naming/naming.js';
