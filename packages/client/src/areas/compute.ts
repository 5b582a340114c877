import { pass, type CallOptions, type RequestFn } from '../call.js';
import type { JsonBody, Operation, Query } from '../types.js';

type Body<P extends '/v1/circuits/validate' | '/v1/circuits/analyze' | '/v1/circuits/optimize' | '/v1/analysis/coupling' | '/v1/analysis/coupling/compare'> = JsonBody<Operation<P, 'post'>>;

/** Circuits: schema, validation, analysis, examples, optimization (open; a session raises the limits). */
export function circuitsArea(request: RequestFn) {
  return {
    async schema(options?: CallOptions) {
      return (await request('get', '/v1/circuits/schema', pass(options))).data;
    },
    /** An invalid circuit is a 200 with `valid: false` and every problem at its JSON path. */
    async validate(body: Body<'/v1/circuits/validate'>, options?: CallOptions) {
      return (await request('post', '/v1/circuits/validate', { body, ...pass(options) })).data;
    },
    async analyze(body: Body<'/v1/circuits/analyze'>, options?: CallOptions) {
      return (await request('post', '/v1/circuits/analyze', { body, ...pass(options) })).data;
    },
    async examples(query?: Query<Operation<'/v1/circuits/example', 'get'>>, options?: CallOptions) {
      return (await request('get', '/v1/circuits/example', { query, ...pass(options) })).data;
    },
    /** The optimized circuit with its proof of equivalence (422 OPTIMIZATION_UNVERIFIED without one). */
    async optimize(body: Body<'/v1/circuits/optimize'>, options?: CallOptions) {
      return (await request('post', '/v1/circuits/optimize', { body, ...pass(options) })).data;
    },
  };
}

/** Coupling analysis: which qubits end up coupled, and whether a rewrite kept that. */
export function couplingArea(request: RequestFn) {
  return {
    async analyze(body: Body<'/v1/analysis/coupling'>, options?: CallOptions) {
      return (await request('post', '/v1/analysis/coupling', { body, ...pass(options) })).data;
    },
    async compare(body: Body<'/v1/analysis/coupling/compare'>, options?: CallOptions) {
      return (await request('post', '/v1/analysis/coupling/compare', { body, ...pass(options) })).data;
    },
  };
}
