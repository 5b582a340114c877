import { send, type ApiResponse, type RequestOptions, type TransportConfig } from './transport.js';
import type { HttpMethod, JsonBody, Operation, PathsWith, ResponseData } from './types.js';

/**
 * The typed way to call any operation of the document: path, method, parameters, body and
 * answer are all checked against the generated types. The area methods are built on it.
 */

/** Per-call options every method takes last. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
  /** The Idempotency-Key to send (money-moving POSTs get a fresh one otherwise). */
  idempotencyKey?: string | undefined;
}

// A parameter group the operation requires, may take, or does not have.
type Field<O, K extends 'path' | 'query', Name extends string> = O extends { parameters: { [k in K]: infer V } }
  ? { [n in Name]: V }
  : O extends { parameters: { [k in K]?: infer V } }
    ? [V] extends [never]
      ? { [n in Name]?: undefined }
      : { [n in Name]?: V | undefined }
    : { [n in Name]?: undefined };

/** The typed request options of one operation: `params`, `query` and `body` as the document has them. */
export type TypedRequest<O> = Omit<RequestOptions, 'params' | 'query' | 'body' | 'form'> &
  Field<O, 'path', 'params'> &
  Field<O, 'query', 'query'> &
  ([Exclude<JsonBody<O>, undefined>] extends [never] ? { body?: undefined; form?: Record<string, string | undefined> } : { body: JsonBody<O> });

export type RequestFn = <M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, init?: TypedRequest<Operation<P, M>>) => Promise<ApiResponse<ResponseData<Operation<P, M>>>>;

/** Binds the transport into the typed `request()` of a client. */
export function typedRequest(cfg: TransportConfig): RequestFn {
  return async <M extends HttpMethod, P extends PathsWith<M>>(method: M, path: P, init?: TypedRequest<Operation<P, M>>) => {
    // `init` is the transport's options narrowed to this operation.
    const res = await send(cfg, method, path, init as RequestOptions | undefined);
    // The generated types describe what this operation answers; the server's own test
    // (tests/foundation/openapi-responses.test.ts) holds it to that.
    return res as ApiResponse<ResponseData<Operation<P, M>>>;
  };
}

/** `options` as the transport takes them. */
export function pass(options: CallOptions | undefined): Pick<RequestOptions, 'signal' | 'headers' | 'idempotencyKey'> {
  return { signal: options?.signal, headers: options?.headers, idempotencyKey: options?.idempotencyKey };
}
