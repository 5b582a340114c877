import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQasm } from '../../src/circuits/qasm/parse-qasm.js';
import { parseCircuitInput } from '../../src/circuits/wire-format.js';
import { AppError } from '../../src/errors/app-error.js';
import type { App } from '../../src/http/app-types.js';
import { buildTestApp } from '../helpers/app.js';
import { callers, ENTRY_POINTS, expectEdgeRefusal, expectProblem, problemsOf, send, type Callers } from './input-bounds-entry-points.js';

/**
 * Issue #17, defects 3, 4 and 5 (circuit part), at every entry point that takes a circuit,
 * on the driver the suite runs on (PGlite, or PostgreSQL with DATABASE_URL): deep or long
 * expressions, deep metadata and deep bodies, the zero-qubit circuit, NUL and lone
 * surrogates. Each must be a 400 (validate: 200 `valid: false`) naming code and path.
 */
let app: App;
let who: Callers;

beforeAll(async () => {
  app = await buildTestApp();
  who = await callers(app);
});
afterAll(async () => {
  await app?.close();
});

const qasm = (source: string) => JSON.stringify({ format: 'qasm2', source });
const nestedMetadata = (levels: number) => {
  let s = '"leaf"';
  for (let i = 0; i < levels; i++) s = `{"a":${s}}`;
  return `{"schema":"0.2","num_qubits":1,"gates":[],"metadata":${s}}`;
};

describe('defect 3: nesting and expression length are bounded, never a stack overflow', () => {
  const cases: readonly { name: string; circuit: string; code: string; path: string }[] = [
    { name: 'QASM parentheses 2,000 deep', circuit: qasm(`OPENQASM 2.0;\nqreg q[1];\nrz(${'('.repeat(2000)}pi${')'.repeat(2000)}) q[0];`), code: 'EXPRESSION_TOO_DEEP', path: '/source' },
    { name: 'QASM pi+pi+… 30,000 terms', circuit: qasm(`OPENQASM 2.0;\nqreg q[1];\nrz(${Array(30_000).fill('pi').join('+')}) q[0];`), code: 'EXPRESSION_TOO_LONG', path: '/source' },
    { name: 'QASM signs 20,000 deep', circuit: qasm(`OPENQASM 2.0;\nqreg q[1];\nrz(${'-'.repeat(20_000)}pi) q[0];`), code: 'EXPRESSION_TOO_DEEP', path: '/source' },
    { name: 'QASM pi^pi^… 10,000 deep', circuit: qasm(`OPENQASM 2.0;\nqreg q[1];\nrz(${Array(10_000).fill('pi').join('^')}) q[0];`), code: 'EXPRESSION_TOO_DEEP', path: '/source' },
    {
      name: 'QASM sin(sin(… 3,000 deep inside a gate definition',
      circuit: qasm(`OPENQASM 2.0;\nqreg q[1];\ngate g(t) a { rz(${'sin('.repeat(3000)}t${')'.repeat(3000)}) a; }\ng(1) q[0];`),
      code: 'EXPRESSION_TOO_DEEP',
      path: '/source',
    },
    {
      name: 'JSON string parameter 3,000 deep',
      circuit: JSON.stringify({ schema: '0.2', num_qubits: 1, gates: [{ op: 'rz', qubits: [0], params: [`${'('.repeat(3000)}pi${')'.repeat(3000)}`] }] }),
      code: 'EXPRESSION_TOO_DEEP',
      path: '/gates/0/params/0',
    },
    {
      name: 'JSON string parameter pi+pi+… 30,000 terms',
      circuit: JSON.stringify({ schema: '0.2', num_qubits: 1, gates: [{ op: 'rz', qubits: [0], params: [Array(30_000).fill('pi').join('+')] }] }),
      code: 'EXPRESSION_TOO_LONG',
      path: '/gates/0/params/0',
    },
    // Within the body limit (64 levels) but beyond the circuit's own (16): the path names the first container too deep.
    { name: 'metadata 40 deep', circuit: nestedMetadata(40), code: 'TOO_DEEPLY_NESTED', path: `/metadata${'/a'.repeat(15)}` },
    { name: 'metadata 100 KB', circuit: JSON.stringify({ schema: '0.2', num_qubits: 1, gates: [], metadata: { note: 'x'.repeat(100_000) } }), code: 'METADATA_TOO_LARGE', path: '/metadata' },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.code} at every entry point`, async () => {
      for (const ep of ENTRY_POINTS) expectProblem(ep, await send(app, who, ep, c.circuit), c.code, c.path);
    });
  }

  it('expressions and metadata within the bounds are accepted', async () => {
    const ok = JSON.stringify({
      schema: '0.2',
      num_qubits: 1,
      gates: [
        { op: 'rz', qubits: [0], params: [`${'('.repeat(20)}pi/4${')'.repeat(20)}`] },
        { op: 'rx', qubits: [0], params: [Array(100).fill('pi/100').join('+')] },
      ],
      metadata: { brackets: '[[[[{{{{'.repeat(100), deep: JSON.parse(nestedMetadata(12)).metadata },
    });
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/validate', payload: `{"circuit":${ok}}`, headers: { 'content-type': 'application/json' } });
    expect(r.json().data, r.body).toMatchObject({ valid: true });
    expect(r.json().data.circuit.gates[1].params[0]).toBeCloseTo(Math.PI, 9);
  });

  it('a body nested 100,000 deep is 400 JSON_TOO_DEEP in the shape of the route, before parsing', async () => {
    const deep = `{"circuit":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const meta = `{"circuit":${nestedMetadata(5000)}}`;
    for (const [url, headers, body] of [
      ['/v1/circuits/validate', {}, deep],
      ['/v1/circuits/validate', {}, meta],
      ['/v1/circuits/optimize', {}, meta],
      ['/v1/execute/provider-one', who.session, deep],
    ] as const) {
      const r = await app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: body });
      expect(r.statusCode, `${url}: ${r.body.slice(0, 200)}`).toBe(400);
      expect(r.json()).toMatchObject({ status: 'error', error: { code: 'JSON_TOO_DEEP' } });
    }
    const jobs = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { ...who.agent, 'content-type': 'application/json' },
      payload: `{"capability_id":"circuit.analyze","request":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    });
    expect(jobs.statusCode, jobs.body.slice(0, 200)).toBe(400);
    expect(jobs.json()).toMatchObject({ error: { code: 'JSON_TOO_DEEP' }, request_id: expect.any(String) });
    expect(jobs.json()).not.toHaveProperty('status');
  });

  it('the JSON depth check ignores brackets inside strings and keeps the default parser’s rules', async () => {
    const inString = JSON.stringify({ circuit: { schema: '0.2', num_qubits: 1, gates: [], metadata: { s: '['.repeat(10_000) + '\\"{'.repeat(1000) } } });
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: inString });
    expect(r.json().data, r.body.slice(0, 300)).toMatchObject({ valid: true });
    const proto = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"x":1},"circuit":{}}' });
    expect(proto.statusCode).toBe(400);
    const broken = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: '{"circuit":' });
    expect(broken.json()).toMatchObject({ error: { code: 'MALFORMED_JSON' } });
    const empty = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: '' });
    expect(empty.json()).toMatchObject({ error: { code: 'MALFORMED_JSON' } });
  });

  it('in the domain: parseQasm and parseCircuitInput refuse deep expressions with their codes, without recursion limits being hit', () => {
    expect(() => parseQasm(`OPENQASM 2.0; qreg q[1]; rz(${'('.repeat(100_000)}pi${')'.repeat(100_000)}) q[0];`)).toThrow(AppError);
    const r = parseCircuitInput(JSON.parse(nestedMetadata(50_000)));
    expect(r.ok ? [] : r.errors).toEqual([expect.objectContaining({ code: 'TOO_DEEPLY_NESTED' })]);
  });
});

describe('defect 4: one rule for the smallest circuit — at least one qubit, at every entry point', () => {
  const cases: readonly { name: string; circuit: string; path: string }[] = [
    { name: 'OPENQASM 2.0; alone', circuit: qasm('OPENQASM 2.0;'), path: '/source' },
    { name: 'OPENQASM 3.0; alone', circuit: JSON.stringify({ format: 'qasm3', source: 'OPENQASM 3.0;' }), path: '/source' },
    { name: 'QASM with only a classical register', circuit: qasm('OPENQASM 2.0;\ncreg c[2];'), path: '/source' },
    { name: 'schema 0.2 num_qubits 0', circuit: JSON.stringify({ schema: '0.2', num_qubits: 0, gates: [] }), path: '/num_qubits' },
    { name: 'schema 0.1 qubits 0', circuit: JSON.stringify({ version: '0.1', qubits: 0, operations: [] }), path: '/qubits' },
  ];
  for (const c of cases) {
    it(`${c.name}: TOO_SMALL at ${c.path}`, async () => {
      for (const ep of ENTRY_POINTS) expectProblem(ep, await send(app, who, ep, c.circuit), 'TOO_SMALL', c.path);
    });
  }

  it('one qubit and no operations is the smallest valid circuit', async () => {
    for (const circuitText of [qasm('OPENQASM 2.0;\nqreg q[1];'), JSON.stringify({ schema: '0.2', num_qubits: 1, gates: [] })]) {
      const r = await app.inject({ method: 'POST', url: '/v1/circuits/optimize', headers: { 'content-type': 'application/json' }, payload: `{"circuit":${circuitText}}` });
      expect(r.statusCode, r.body).toBe(200);
    }
  });
});

describe('defect 5 (circuits): NUL and lone surrogates are refused with their path before any storage', () => {
  // JSON texts, so escapes reach the server exactly as a hostile client sends them.
  const cases: readonly { name: string; circuit: string; path: string }[] = [
    { name: 'NUL in a metadata value', circuit: '{"schema":"0.2","num_qubits":1,"gates":[],"metadata":{"name":"a\\u0000b"}}', path: '/metadata/name' },
    { name: 'NUL in a metadata key', circuit: '{"schema":"0.2","num_qubits":1,"gates":[],"metadata":{"a\\u0000b":1}}', path: '/metadata/a\u0000b' },
    { name: 'lone high surrogate in nested metadata', circuit: '{"schema":"0.2","num_qubits":1,"gates":[],"metadata":{"tags":["ok","x\\ud800"]}}', path: '/metadata/tags/1' },
    { name: 'lone low surrogate in a metadata key', circuit: '{"schema":"0.2","num_qubits":1,"gates":[],"metadata":{"\\udc00":true}}', path: '/metadata/\udc00' },
    { name: 'NUL in a gate name', circuit: '{"schema":"0.2","num_qubits":1,"gates":[{"op":"h\\u0000","qubits":[0]}]}', path: '/gates/0/op' },
    { name: 'NUL in a QASM comment', circuit: '{"format":"qasm2","source":"OPENQASM 2.0;\\nqreg q[1]; // \\u0000\\nh q[0];"}', path: '/source' },
    { name: 'lone surrogate in a QASM comment', circuit: '{"format":"qasm2","source":"OPENQASM 2.0;\\nqreg q[1]; // \\ud83d\\nh q[0];"}', path: '/source' },
    { name: 'NUL in a legacy 0.1 metadata value', circuit: '{"version":"0.1","qubits":1,"operations":[],"metadata":{"n":"\\u0000"}}', path: '/metadata/n' },
  ];
  for (const c of cases) {
    it(`${c.name}: INVALID_CHARACTERS at the edge, INVALID_CHARACTER in the circuit parser`, async () => {
      // Over HTTP the edge (src/http/plugins/text-safety.ts) refuses it first, in every interface's shape…
      for (const ep of ENTRY_POINTS) expectEdgeRefusal(ep, await send(app, who, ep, c.circuit), c.path);
      // …and the parser refuses it too, for any caller that does not come through HTTP.
      const parsed = parseCircuitInput(JSON.parse(c.circuit));
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors).toContainEqual(expect.objectContaining({ code: 'INVALID_CHARACTER', path: c.path }));
    });
  }

  it('well-formed non-ASCII text (a surrogate pair, accents) is kept and stored', async () => {
    const text = '{"schema":"0.2","num_qubits":1,"gates":[{"op":"h","qubits":[0]}],"metadata":{"name":"caf\\u00e9 \\ud83d\\ude80"}}';
    const v = await app.inject({ method: 'POST', url: '/v1/circuits/validate', headers: { 'content-type': 'application/json' }, payload: `{"circuit":${text}}` });
    expect(v.json().data.circuit.metadata).toEqual({ name: 'café 🚀' });
    const job = ENTRY_POINTS.find((e) => e.name === 'job circuit.analyze')!;
    const r = await send(app, who, job, text);
    expect(r.statusCode, r.body).toBe(202);
  });
});

describe('defect 1 (audit): a device list cannot make analyze do quadratic work', () => {
  const bell = JSON.parse('{"schema":"0.2","num_qubits":2,"gates":[{"op":"h","qubits":[0]},{"op":"cx","qubits":[0,1]}]}') as unknown;

  it('100,000 device ids are refused by the schema (TOO_MANY_ITEMS), not looked up one by one', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: bell, devices: Array.from({ length: 100_000 }, (_, i) => String(i)) } });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(400);
    expect(r.json().error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: '/devices', code: 'TOO_MANY_ITEMS' })] });
  });

  it('each unknown id is reported at its own index (repeats are DUPLICATE_ITEM, see edge-schema-bounds)', async () => {
    const r = await app.inject({ method: 'POST', url: '/v1/circuits/analyze', payload: { circuit: bell, devices: ['nope', 'p1-falcon-7', 'nada'] } });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(400);
    expect(r.json().error.details.map((d: { path: string }) => d.path)).toEqual(['/devices/0', '/devices/2']);
  });
});

describe('defect 1 (audit): the problem list is bounded, so a small body cannot produce a huge answer', () => {
  const zeros = `[${'0,'.repeat(300_000)}0]`;
  const hostile = [
    { name: 'one barrier on qubit 0 three hundred thousand times', circuit: `{"schema":"0.2","num_qubits":2,"gates":[{"op":"barrier","qubits":${zeros}}]}` },
    { name: 'thirty thousand gates out of range', circuit: `{"schema":"0.2","num_qubits":2,"gates":[${'{"op":"x","qubits":[9]},'.repeat(30_000)}{"op":"x","qubits":[9]}]}` },
  ];
  for (const h of hostile) {
    it(`${h.name}: at most 100 problems, then TOO_MANY_PROBLEMS, at every entry point`, async () => {
      for (const ep of ENTRY_POINTS) {
        const res = await send(app, who, ep, h.circuit);
        const problems = problemsOf(ep, res);
        expect(problems.length, ep.name).toBeLessThanOrEqual(101);
        expect(problems.at(-1), ep.name).toMatchObject({ code: 'TOO_MANY_PROBLEMS', path: ep.circuitPath });
        expect(res.body.length, ep.name).toBeLessThan(64 * 1024);
      }
    });
  }
});

describe('defect 1 (audit): coupling pairs and qubit maps cannot amplify a body into a huge answer', () => {
  const bell = '{"schema":"0.2","num_qubits":2,"gates":[{"op":"h","qubits":[0]},{"op":"cx","qubits":[0,1]}]}';
  const post = (url: string, body: string) => app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: body });

  it('50,000 pairs out of range: at most 100 problems, then TOO_MANY_PROBLEMS', async () => {
    const pairs = `[${'[0,9],'.repeat(50_000)}[0,9]]`;
    for (const [url, body] of [
      ['/v1/analysis/coupling', `{"circuit":${bell},"mode":"qualitative","pairs":${pairs}}`],
      ['/v1/analysis/coupling/compare', `{"before":${bell},"after":${bell},"mode":"qualitative","pairs":${pairs}}`],
    ] as const) {
      const r = await post(url, body);
      expect(r.statusCode, r.body.slice(0, 200)).toBe(400);
      const e = r.json().error;
      expect(e.code).toBe('COUPLING_PAIR_INVALID');
      expect(e.details.length).toBeLessThanOrEqual(101);
      expect(e.details.at(-1)).toMatchObject({ code: 'TOO_MANY_PROBLEMS', path: '/pairs' });
    }
  });

  it('a qubit_map longer than any circuit is refused by the schema (TOO_MANY_ITEMS)', async () => {
    const r = await post('/v1/analysis/coupling/compare', `{"before":${bell},"after":${bell},"qubit_map":[${'9,'.repeat(100_000)}9]}`);
    expect(r.statusCode, r.body.slice(0, 200)).toBe(400);
    expect(r.json().error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: '/qubit_map', code: 'TOO_MANY_ITEMS' })] });
  });
});

describe('defect 1 (audit): inlined gate calls cannot re-evaluate parameter arithmetic without bound', () => {
  // 16 calls of b, each evaluating 40 parameters of 99 nodes: ~63,000 nodes, above 64 × 100 allowed
  // with CIRCUIT_MAX_GATES=100, though only 17 user-gate calls (the call bound is 800).
  const params = Array.from({ length: 40 }, (_, i) => `p${i}`).join(',');
  const heavy = Array(40).fill(Array(50).fill('x').join('+')).join(',');
  const source = `OPENQASM 2.0;\nqreg q[1];\ngate a(${params}) r { }\ngate b(x) r { a(${heavy}) r; }\ngate c(x) r { b(x) r; b(x) r; b(x) r; b(x) r; }\ngate d(x) r { c(x) r; c(x) r; c(x) r; c(x) r; }\nd(1) q[0];\nx q[0];`;

  it('in the domain: parseQasm stops at 64 evaluated expression terms per allowed operation', () => {
    expect(() => parseQasm(source, { maxOps: 100 })).toThrow(/expression terms/);
    expect(parseQasm(source, { maxOps: 1000 }).ops).toHaveLength(1);
  });

  it('over HTTP: TOO_MANY_GATES at /circuit/source, with the deployment limit scaling the budget', async () => {
    const small = await buildTestApp({ CIRCUIT_MAX_GATES: '100' });
    try {
      const r = await small.inject({ method: 'POST', url: '/v1/circuits/validate', payload: { circuit: { format: 'qasm2', source } } });
      expect(r.json().data.errors, r.body.slice(0, 300)).toEqual([expect.objectContaining({ code: 'TOO_MANY_GATES', path: '/circuit/source' })]);
    } finally {
      await small.close();
    }
  });
});

describe('defect 1 (audit): long OpenQASM name lists keep their checks (duplicate check is linear)', () => {
  // The duplicate check was quadratic (7 s for these 400 KB). Speed is not asserted here (no timed
  // assertions); this keeps the behaviour of the set-based check pinned.
  const names = Array.from({ length: 60_000 }, (_, i) => `p${i}`);
  it('a definition with 60,000 parameters parses; a repeated one is still refused at its position', () => {
    expect(parseQasm(`OPENQASM 2.0;\nqreg q[1];\ngate g(${names.join(',')}) a { }\nx q[0];`).ops).toHaveLength(1);
    expect(() => parseQasm(`OPENQASM 2.0;\nqreg q[1];\ngate g(${names.join(',')},p5) a { }`)).toThrow(/'p5' is listed twice/);
    expect(() => parseQasm(`OPENQASM 2.0;\nqreg q[1];\ngate g a, b { x c; }`)).toThrow(/'c' is not a qubit argument/);
  });
});

describe('defect 1 (audit): a job request with a huge number of schema problems', () => {
  const bell = '{"schema":"0.2","num_qubits":1,"gates":[]}';
  for (const [capability, field] of [
    ['circuit.analyze', 'devices'],
    ['coupling.analyze', 'pairs'],
  ] as const) {
    it(`${capability}: 200,000 bad '${field}' items are a 400 with at most 100 problems, not a 500`, async () => {
      const body = `{"capability_id":"${capability}","idempotency_key":"many-${field}-${process.pid}","max_total_price":"1.000000","request":{"circuit":${bell},"${field}":[${'"x",'.repeat(200_000)}"x"]}}`;
      const r = await app.inject({ method: 'POST', url: '/v1/jobs', headers: { ...who.agent, 'content-type': 'application/json' }, payload: body });
      expect(r.statusCode, r.body.slice(0, 300)).toBe(400);
      const e = r.json().error;
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details.length).toBeLessThanOrEqual(101);
      expect(e.details.at(-1)).toMatchObject({ code: 'TOO_MANY_PROBLEMS', path: '/request' });
    });
  }
});
