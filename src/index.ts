export type { ApiRequest, ApiResponse, ErrorInfo, HeaderRecord, QueryRecord, ResponseHeaders } from './core/contract.js';
export type { CookieOptions } from './core/cookies.js';
export type { Method } from './core/http.js';
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
export type { InferInput, InferOutput, StandardSchema, StandardIssue, StandardResult } from './core/standard-schema.js';
export type { PartSchema } from './core/validation.js';
export { json, text, type Serializer } from './formats/formats.js';
export type { RawBody } from './core/body.js';
export { endpoint } from './definitions/endpoint.js';
export type {
  Authenticated,
  Authorize,
  BodyOption,
  ChosenOutcome,
  Context,
  CurrentItem,
  DeclaredError,
  DeclaredErrors,
  Endpoint,
  Guard,
  Principal,
  Register,
  Reply,
  ResponseSchema,
  State,
} from './core/endpoint.js';
export type { EndpointConfig, EndpointContext, EndpointFacts, ResultOf } from './definitions/endpoint-config.js';
export type { ConditionalOption } from './conventions/conditional/declare.js';
export type { ListContext } from './conventions/lists/lists.js';
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
export { createApi, createEndpointHandler } from './preset.js';
export { extension, type ExtensionOptions, type Observation } from './core/extension.js';
export type { Answer } from './core/contract.js';
export type { Convention } from './core/seam.js';
export type {
  EndpointHandlerOptions,
  Api,
  ApiFacts,
  ApiDocument,
  ApiOptions,
  RespondOptions,
  Resource,
  RouteInfo,
} from './core/api.js';
export type { ProblemBody, RuntimeOptions } from './core/settings.js';
export type { CorsOptions } from './conventions/cors/cors.js';
export {
  ConventionError,
  isConventionError,
  type NamingFinding,
  type NamingMode,
  type NamingOptions,
  type NamingRule,
} from './naming/naming.js';
