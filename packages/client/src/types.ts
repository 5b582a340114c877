import type { components, paths } from './generated/openapi.js';

/**
 * Types read off the generated document: an operation's JSON body, query, path parameters and
 * success answer (with the platform envelope's `data` unwrapped), and names for the schemas a
 * caller handles most. Nothing here is written by hand that the document already says.
 */

export type { components, paths, operations } from './generated/openapi.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that have an operation for `M`. */
export type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

/** The operation of `M` on `P`. */
export type Operation<P extends keyof paths, M extends HttpMethod> = Extract<paths[P][M], { responses: unknown }>;

type Content<T> = T extends { content: infer C } ? C : never;

/** The JSON request body of an operation (`undefined` when it takes none). */
export type JsonBody<O> = BodyOf<O, 'application/json'>;

/** The form (x-www-form-urlencoded) request body of an operation, when it takes one. */
export type FormBody<O> = BodyOf<O, 'application/x-www-form-urlencoded'>;

// `requestBody?: never` (no body) has no content; an optional body's content is still its type.
type BodyOf<O, Media extends string> = O extends { requestBody?: infer RB } ? ([Content<RB>] extends [never] ? undefined : Content<RB> extends { [m in Media]: infer B } ? B : undefined) : undefined;

type ParamsOf<O, K extends 'query' | 'path' | 'header'> = O extends { parameters: infer PS } ? (PS extends { [key in K]?: infer Q } ? Q : undefined) : undefined;

/** The query parameters of an operation (`undefined` when it takes none). */
export type Query<O> = ParamsOf<O, 'query'>;
/** The path parameters of an operation (`undefined` when it has none). */
export type PathParams<O> = ParamsOf<O, 'path'>;

type SuccessStatus = 200 | 201 | 202 | 204 | 303;

/** The JSON body of an operation's success answer(s), as sent (envelope included). */
export type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R & SuccessStatus]: Content<R[S]> extends { 'application/json': infer J } ? J : undefined }[keyof R & SuccessStatus]
  : never;

/** The platform envelope's `data`, or the body itself on the Account Jobs interface and OAuth. */
export type Unwrapped<J> = J extends { status: 'ok'; data: infer D } ? D : J;

/** What a typed method resolves to: the success answer without its envelope. */
export type ResponseData<O> = Unwrapped<SuccessBody<O>>;

// Request bodies and answers of this client's methods, named.
type S = components['schemas'];
export type Circuit = S['CircuitV02'] | S['CircuitV01'] | S['QasmInput'];
export type CircuitV02 = S['CircuitV02'];
export type CircuitAnalysis = S['CircuitAnalysis'];
export type CouplingReport = S['CouplingReport'];
export type ExecutionJob = S['ExecutionJob'];
/** An optimize job (`circuits.optimizeAsync`): queued, running with progress, completed with the result, failed or canceled. */
export type OptimizeJob = S['OptimizeJob'];
/** The synchronous optimize's answer (also a completed optimize job's `result`). */
export type OptimizeResult = Exclude<ResponseData<Operation<'/v1/circuits/optimize', 'post'>>, OptimizeJob>;
export type ExecutionResults = S['ExecutionResults'];
export type ExecutionCapabilities = S['ExecutionCapabilities'];
export type ExecutionDevice = S['ExecutionDevice'];
export type Wallet = S['Wallet'];
export type SpendControls = S['SpendControls'];
export type Job = S['Job'];
export type JobStatus = Job['status'];
export type JobResult = S['JobResult'];
export type JobReceipt = S['JobReceipt'];
export type JobQuote = S['JobQuote'];
export type CatalogEntry = S['CatalogEntry'];
export type AccountBalance = S['AccountBalance'];
export type ErrorProblem = S['ErrorProblem'];
export type ErrorFacts = S['ErrorFacts'];
export type Meta = S['Meta'];

type ErrorSchemaName = Extract<keyof S, `PlatformError${number}` | `JobsError${number}`>;
/** Every error code the document declares, on either interface. */
export type QrailErrorCode = S[ErrorSchemaName] extends infer E ? (E extends { error: { code: infer C } } ? C : never) : never;
