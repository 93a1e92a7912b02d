import type { Answer, ApiRequest } from './contract.js';
import type { Endpoint } from './endpoint.js';
import type { AnswerHook, BodyWriter, ByteHook, FinishHook, SettleHook, Step } from './exchange.js';
import type { Outcome } from './outcomes.js';
import type { Settings } from './settings.js';

/**
 * The one seam of the engine: what a convention (CORS, conditional requests, lists, ...) adds to an
 * API and to each endpoint, at fixed phases of a request's walk. Every part is composed once, when
 * the API is built, into the endpoint's array of steps: a phase with nothing in it costs nothing per
 * request, and the engine names no convention.
 */

/**
 * Where a step runs in a request's walk, in this order among the engine's own steps:
 * - `request`: before authentication, on every request of the endpoint;
 * - `caller`: once the caller is known, before `Accept`, `Content-Type` and the body are read;
 * - `input`: among validation, after the path params and before the query: its issues join the one 400;
 * - `access`: after authorization and the endpoint's guards;
 * - `item`: after the item the URL names is loaded (only where the endpoint loads one);
 * - `handler`: just before the handler;
 * - `result`: after the handler, on its result.
 */
export type Phase = 'request' | 'caller' | 'input' | 'access' | 'item' | 'handler' | 'result';

/** The phases in the order a request meets them. */
export const PHASES: readonly Phase[] = ['request', 'caller', 'input', 'access', 'item', 'handler', 'result'];

/**
 * A step a convention adds at a phase, with the outcomes it can end a request with (its documentation
 * lists them).
 *
 * @example
 * const part: PhaseStep = { phase: 'item', run: checkOwner, outcomes: ['forbidden'] };
 */
export interface PhaseStep {
  readonly phase: Phase;
  readonly run: Step;
  readonly outcomes?: readonly Outcome[];
}

/**
 * What a convention adds to one endpoint, from what the endpoint declares for it.
 *
 * @example
 * const parts: EndpointParts = { steps: [{ phase: 'input', run: readList }], answer: addLink };
 */
export interface EndpointParts {
  readonly steps?: readonly PhaseStep[] | undefined;
  /** Adds headers to a success answer and may change its body (see {@link AnswerHook}). */
  readonly answer?: AnswerHook | undefined;
  /** Cuts a success body down before any format writes it; runs after the body was found writable. */
  readonly project?: ((value: unknown) => unknown) | undefined;
  /** Sees every answer of the endpoint once it is built, errors too (a 429, a handler's 404), and may add headers to it. */
  readonly finish?: FinishHook | undefined;
  /** Sees every answer of the endpoint's walk, failures too, and may hold it back (see {@link SettleHook}). */
  readonly settle?: SettleHook | undefined;
  /**
   * Reads the body of a media type itself, instead of the engine (`multipart/form-data`, a urlencoded
   * form), by its `type/subtype` in lower case: the step runs where the engine would read the body,
   * after its `Content-Type`, `Content-Encoding` and `Content-Length` were checked, and sets
   * `ctx.body`, which the body schema then validates. Only for a type the endpoint consumes, by name
   * or within a range of `consumes` (`*\/*`), on a raw body.
   */
  readonly readers?: Readonly<Record<string, Step>> | undefined;
  /**
   * Writes the success of a media type itself, instead of the engine (`text/event-stream`), by its
   * `type/subtype` in lower case (see {@link BodyWriter}). Only for a type of the endpoint's
   * `produces` that no format of the API writes.
   */
  readonly writers?: Readonly<Record<string, BodyWriter>> | undefined;
  /** Sees each answer of bytes or a stream under a type of `produces` (not one a writer gave), and may give another (see {@link ByteHook}). */
  readonly bytes?: ByteHook | undefined;
  /** The statuses its hooks answer that are no outcome of the table (a 416): the endpoint declares them. */
  readonly statuses?: readonly number[] | undefined;
}

/** What a convention knows of the endpoint it builds for. */
export interface EndpointBuild {
  /** The endpoint's full template, below the API's base path. */
  readonly template: string;
  readonly settings: Settings;
  /** `METHOD /template`, for messages. */
  readonly where: string;
}

/**
 * How the API answers a request: what a convention's `wrap` receives and gives. `passUnmatched`
 * answers undefined for a path no endpoint matches; `lowerCaseHeaders` says the header names are
 * lower case already.
 */
export type Responder = (request: ApiRequest, passUnmatched: boolean, lowerCaseHeaders?: boolean) => Answer;

/** What a convention may ask of the API it wraps. */
export interface ApiBuild {
  readonly settings: Settings;
  /** The `Allow` value of the route a request's URL matches, or undefined: no route (or a URL that cannot be read). */
  allowOf(url: string): string | undefined;
  /** The template of the route a request's URL matches, such as `/api/users/:id`, or undefined. */
  templateOf(url: string): string | undefined;
  /** The response headers the API's modules add that a page may read (`exposes` of each): CORS exposes them. */
  readonly exposes: readonly string[];
}

/**
 * A module on the engine's seam: one convention, or what a user adds with `extension()`. It is given
 * to `createApi({ use })` (restcanon's own come with `createApi`), and asked once per API and once per
 * endpoint what it adds.
 *
 * @example
 * const stamp: Convention = { name: 'stamp', endpoint: () => ({ answer: (_exchange, headers, body) => ((headers['x-api'] = '1'), body) }) };
 */
export interface Convention {
  /**
   * Its name: the key under which an endpoint declares what it asks of it (`endpoint.conventions`),
   * and how messages name it. Names are unique within an API.
   */
  readonly name: string;
  /**
   * What it adds to the OpenAPI document: an `OpenApiPart` of `restcanon/openapi` (its headers,
   * parameters, what it marks on an operation), asked about every operation of an API that uses it.
   * The engine never reads it.
   */
  readonly openapi?: object;
  /** The names of response headers it adds that a browser page may read, such as `RateLimit`: CORS exposes them. */
  readonly exposes?: readonly string[];
  /** The options of `createApi` it reads, such as `cors`; any other option is still refused. */
  readonly options?: readonly string[];
  /**
   * Its place among restcanon's own conventions, which have one each: within a phase, steps run by
   * rank, whatever the order of `use`, so that an owner's 403 always comes before a precondition's
   * 304. A module without a rank runs after every ranked one, in the order of `use`.
   */
  readonly rank?: number;
  /** Once per API: checks its options (a mistake throws) and wraps the API's answer to every request. */
  api?(options: Readonly<Record<string, unknown>>, build: ApiBuild): ((respond: Responder) => Responder) | undefined;
  /**
   * Once per endpoint: what it adds there, from what the endpoint declares for it
   * (`endpoint.conventions[name]`, undefined where it declares nothing), or undefined where it adds
   * nothing. A mistake in the declaration throws, naming the endpoint.
   */
  endpoint?(endpoint: Endpoint, declared: unknown, build: EndpointBuild): EndpointParts | undefined;
}
