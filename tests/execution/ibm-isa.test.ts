import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, signUp } from '../helpers/app.js';
import { fundAccount } from '../helpers/ledger.js';
import { fixtureFile } from '../helpers/fixture-file.js';
import type { App } from '../../src/http/app-types.js';
import { circuit, conditioned, gate, measure } from '../../src/circuits/ir.js';
import { deviceProfile } from '../../src/devices/device-catalogue.js';
import { IbmRuntimeClient } from '../../src/execution/adapters/ibm-runtime-client.js';
import { IbmRuntimeDriver } from '../../src/execution/adapters/ibm-runtime-driver.js';
import { ibmFaulty } from '../../src/execution/adapters/ibm-runtime-snapshots.js';
import { checkIbmIsa } from '../../src/execution/adapters/ibm-isa-check.js';
import { ibmIsaTarget, ibmSupportsDynamicCircuits, type IsaTarget } from '../../src/execution/adapters/ibm-isa-target.js';
import { toIbmQasm3 } from '../../src/execution/adapters/ibm-qasm.js';
import { settleExecutionJob } from './helpers.js';
import { FAKE_BACKEND, FakeIbmRuntime, defaultIbmScript, ibmFakeEnv } from './fakes/ibm-runtime-fake.js';

/**
 * ISA circuits and dynamic circuits on IBM (issue 35 items 5 and 7). The OpenQASM 3 our driver
 * sends is checked against an ISA built straight from IBM's recorded ibm_fez answers
 * (tests/fixtures/providers/ibm), independently of the snapshot the driver itself reads: only
 * basis gates, physical qubits `$n` that exist, two-qubit gates on coupling-map pairs, no faulty
 * qubit or pair, `if` only where the configuration lists `if_else` (qiskit-ibm-runtime's
 * `is_isa_circuit` and `check_faulty`).
 */
const json = (name: string) => JSON.parse(readFileSync(fixtureFile(`providers/ibm/${name}`), 'utf8')) as Record<string, unknown>;
const conf = json('conf_fez.json');
const props = json('props_fez.json');
const fez = (): IsaTarget => ibmIsaTarget(conf, ibmFaulty(props, conf['basis_gates'] as string[]));
const program = (...lines: string[]) => ['OPENQASM 3.0;', 'include "stdgates.inc";', 'bit[2] c;', ...lines].join('\n') + '\n';

describe('the ISA check (the rules qiskit-ibm-runtime applies before submitting), on the recorded ibm_fez', () => {
  it("reads ibm_fez's ISA from its configuration: basis cz/id/rz/sx/x, measure, reset, delay, if_else; 352 directed pairs; 7 faulty pairs", () => {
    const t = fez();
    expect(t.numQubits).toBe(156);
    for (const i of ['cz', 'id', 'rz', 'sx', 'x', 'measure', 'reset', 'delay', 'if_else']) expect(t.instructions.has(i)).toBe(true);
    for (const i of ['cx', 'h', 'ecr', 'rzz']) expect(t.instructions.has(i)).toBe(false);
    expect(t.pairs!.size).toBe(352);
    expect(t.faultyPairs.size).toBe(7);
    expect(ibmSupportsDynamicCircuits(conf)).toBe(true);
    expect(ibmSupportsDynamicCircuits({ ...conf, supported_instructions: (conf['supported_instructions'] as string[]).filter((i) => i !== 'if_else') })).toBe(false);
  });

  it('passes a circuit in the basis, on coupled physical qubits, with a mid-circuit measurement, a reset and feed-forward', () => {
    const ok = program(
      'rz(pi/2) $0;',
      'sx $0;',
      'cz $0, $1;',
      'cz $1, $0;',
      'barrier $0, $1;',
      'c[0] = measure $0;',
      'reset $0;',
      'if (c[0] == true) { x $1; }',
      'if (c == 1) { rz(-0.25) $1; }',
      'c[1] = measure $1;',
    );
    expect(checkIbmIsa(ok, fez())).toBeNull();
  });

  const cases: Array<[string, string, string, RegExp]> = [
    ['a gate outside the basis', 'h $0;', 'basis', /h is not an instruction of/],
    ['cx on a cz backend', 'cx $0, $1;', 'basis', /cx is not an instruction/],
    ['a pair outside the coupling map', 'cz $0, $2;', 'coupling', /\$0, \$2: not a pair/],
    ['a pair IBM reports broken (gate_error 1)', 'cz $27, $28;', 'faulty', /pair \$27–\$28 is reported faulty/],
    ['a qubit the device lacks', 'x $156;', 'qubit-range', /\$156 does not exist .*156 qubits/],
    ['a virtual qubit register', 'qubit[2] q;', 'physical-qubits', /virtual/],
    ['a virtual qubit operand', 'x q;', 'physical-qubits', /not a physical qubit/],
    ['a wrong number of qubits', 'cz $0;', 'arity', /cz takes 2 qubit/],
    ['a bit outside its register', 'c[2] = measure $0;', 'register', /c\[2\] is outside the register/],
    ['a register value it can never hold', 'if (c == 4) { x $0; }', 'register', /never equal 4/],
    ['a statement qrail does not write (a loop)', 'while (c[0]) { x $0; }', 'syntax', /unexpected "while"/],
    ['an unbound parameter', 'rz(theta) $0;', 'syntax', /"theta" is not a constant angle/],
  ];
  for (const [what, line, rule, message] of cases) {
    it(`refuses ${what} (${rule})`, () => {
      const v = checkIbmIsa(program(line), fez());
      expect(v).toMatchObject({ rule, line: 4 });
      expect(v!.message).toMatch(message);
    });
  }

  it('refuses a qubit IBM reports non-operational, and an if on a backend without if_else (dynamic)', () => {
    const qubits = (props['qubits'] as unknown[][]).map((q, i) => (i === 3 ? [...q, { date: '2026-11-26T05:10:00Z', name: 'operational', unit: '', value: 0 }] : q));
    const t = ibmIsaTarget(conf, ibmFaulty({ ...props, qubits }, conf['basis_gates'] as string[]));
    expect(checkIbmIsa(program('sx $3;'), t)).toMatchObject({ rule: 'faulty', message: expect.stringMatching(/\$3 is reported faulty/) });
    const noIf = ibmIsaTarget({ ...conf, supported_instructions: (conf['supported_instructions'] as string[]).filter((i) => i !== 'if_else') }, { qubits: [], edges: [] });
    expect(checkIbmIsa(program('c[0] = measure $0;', 'if (c[0] == true) { x $1; }'), noIf)).toMatchObject({ rule: 'dynamic', line: 5 });
    // A fractional rzz backend: angles outside [0, π/2] are refused, as qiskit-ibm-runtime does.
    const frac = ibmIsaTarget({ ...conf, basis_gates: [...(conf['basis_gates'] as string[]), 'rzz'] }, { qubits: [], edges: [] });
    expect(checkIbmIsa(program('rzz(pi/4) $0, $1;'), frac)).toBeNull();
    expect(checkIbmIsa(program('rzz(-pi/4) $0, $1;'), frac)).toMatchObject({ rule: 'angle' });
  });

  it('the spelling of a translated dynamic circuit: $n qubits, register c, if blocks per bit or on the whole register', () => {
    const c = circuit(156, 2, [
      gate('sx', [5]),
      measure(5, 0),
      conditioned(gate('x', [6]), { clbits: [0], value: 1 }),
      conditioned(gate('rz', [6], [Math.PI / 4]), { clbits: [1, 0], value: 1 }),
      conditioned(gate('cz', [5, 6]), { clbits: [0, 1], value: 2 }),
      measure(6, 1),
    ]);
    const text = toIbmQasm3(c);
    expect(text.split('\n').slice(2, 9)).toEqual([
      'bit[2] c;',
      'sx $5;',
      'c[0] = measure $5;',
      'if (c[0] == true) { x $6; }',
      'if (c[1] == true) { if (c[0] == false) { rz(pi/4) $6; } }',
      'if (c == 2) { cz $5, $6; }',
      'c[1] = measure $6;',
    ]);
    expect(checkIbmIsa(text, fez())).toBeNull();
  });
});

describe('the IBM driver refuses a non-ISA circuit before any network call', () => {
  const fake = new FakeIbmRuntime();
  beforeAll(async () => fake.start());
  afterAll(async () => fake.close());

  it('an untranslated h reaches the driver: REMOTE_CIRCUIT_NOT_ISA, no request at all (not even IAM)', async () => {
    fake.script = defaultIbmScript();
    const client = new IbmRuntimeClient({ apiKey: 'ibm-test-key', instance: fake.script.instance, baseUrl: fake.baseUrl, iamUrl: fake.origin, timeoutMs: 1_000 });
    const driver = new IbmRuntimeDriver(client, { 'p1-falcon-7': FAKE_BACKEND });
    const before = fake.requests.length;
    const out = await driver.submit({ jobId: 'not-isa', device: deviceProfile('p1-falcon-7')!, circuit: circuit(7, 1, [gate('h', [0]), measure(0, 0)]), shots: 4, seed: 1 });
    expect(out).toMatchObject({ state: 'failed', code: 'REMOTE_CIRCUIT_NOT_ISA', message: expect.stringMatching(/basis, line 4: h is not an instruction of ibm_fake_h7/) });
    expect(fake.requests.length).toBe(before);
    // Two qubits that are not coupled on the H-shaped 7-qubit device (0 and 2) are refused the same way.
    const far = await driver.submit({ jobId: 'not-isa-2', device: deviceProfile('p1-falcon-7')!, circuit: circuit(7, 1, [gate('cx', [0, 2]), measure(0, 0)]), shots: 4, seed: 1 });
    expect(far).toMatchObject({ state: 'failed', code: 'REMOTE_CIRCUIT_NOT_ISA', message: expect.stringMatching(/coupling/) });
    expect(fake.requests.length).toBe(before);
  });
});

describe('ISA and dynamic circuits end to end: IBM ibm_fez (recorded) behind the fake, held jobs through the API', () => {
  const fake = new FakeIbmRuntime();
  let app: App;
  beforeAll(async () => {
    await fake.start();
    app = await buildTestApp({ ...ibmFakeEnv(fake), EXECUTION_REMOTE_POLL_MS: '1' });
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  const useDevice = async (device: IbmFakeDevice | undefined) => {
    fake.script = { ...defaultIbmScript(), ...(device === undefined ? {} : { device }) };
    expect(await app.services.snapshotRefresher.refreshAll()).toEqual([{ provider: 'provider-one', ok: true, nextInMs: 300_000 }]);
  };
  beforeEach(async () => useDevice({ configuration: conf, properties: props }));

  async function runHeld(wire: Record<string, unknown>, shots = 4) {
    const u = await signUp(app);
    await fundAccount(app, u.accountId, 20_000_000n);
    const q = await app.inject({ method: 'POST', url: '/v1/billing/hardware/quote', headers: u.auth, payload: { provider: 'provider-one', device: 'p1-falcon-7', shots } });
    const h = await app.inject({ method: 'POST', url: '/v1/billing/hardware/hold', headers: u.auth, payload: { quote_id: q.json().data.quote_id } });
    expect(h.statusCode).toBe(201);
    const jobId = h.json().data.job_id as string;
    const r = await app.inject({ method: 'POST', url: `/v1/execute/provider-one/held/${jobId}`, headers: u.auth, payload: { circuit: wire, client_token: 'isa' } });
    return { u, jobId, r };
  }

  const ghz = (n: number) => ({
    schema: '0.2',
    num_qubits: n,
    num_clbits: n,
    gates: [{ op: 'h', qubits: [0] }, ...Array.from({ length: n - 1 }, (_, i) => ({ op: 'cx', qubits: [i, i + 1] }))],
    measurements: Array.from({ length: n }, (_, q) => ({ qubit: q, clbit: q })),
  });
  // Non-native gates everywhere: Toffoli, swaps between far qubits, arbitrary rotations.
  const mixed = {
    schema: '0.2',
    num_qubits: 5,
    num_clbits: 5,
    gates: [
      { op: 'h', qubits: [0] },
      { op: 'ccx', qubits: [0, 3, 4] },
      { op: 'swap', qubits: [1, 4] },
      { op: 'ry', qubits: [2], params: [0.3] },
      { op: 'cp', qubits: [2, 0], params: [1.1] },
      { op: 't', qubits: [3] },
      { op: 'cy', qubits: [4, 1] },
    ],
    measurements: Array.from({ length: 5 }, (_, q) => ({ qubit: q, clbit: q })),
  };
  // Teleportation with feed-forward: mid-circuit measurements, then x and z conditioned on them.
  const teleport = {
    schema: '0.2',
    num_qubits: 3,
    num_clbits: 3,
    gates: [
      { op: 'ry', qubits: [0], params: [0.7] },
      { op: 'h', qubits: [1] },
      { op: 'cx', qubits: [1, 2] },
      { op: 'cx', qubits: [0, 1] },
      { op: 'h', qubits: [0] },
      { op: 'measure', qubits: [0], clbits: [0] },
      { op: 'measure', qubits: [1], clbits: [1] },
      { op: 'x', qubits: [2], condition: { clbits: [1], value: 1 } },
      { op: 'z', qubits: [2], condition: { clbits: [0], value: 1 } },
      { op: 'cx', qubits: [0, 2], condition: { clbits: [0, 1], value: 3 } },
    ],
    measurements: [{ qubit: 2, clbit: 2 }],
  };

  it('the device reads dynamic circuits and reset from the configuration: supports_dynamic_circuits true for ibm_fez, false for a backend without if_else', async () => {
    const dev = async () => (await app.inject({ method: 'GET', url: '/v1/execute/provider-one/devices' })).json().data.devices.find((d: { id: string }) => d.id === 'p1-falcon-7');
    expect(await dev()).toMatchObject({ num_qubits: 156, supports_dynamic_circuits: true, supports_reset: true });
    // The fake's own backend lists no if_else (basis_gates only, as older configurations do).
    await useDevice(undefined);
    expect(await dev()).toMatchObject({ num_qubits: 7, supports_dynamic_circuits: false });
  });

  for (const [name, wire, clbits] of [
    ['a 5-qubit GHZ', ghz(5), 5],
    ['a circuit of non-native gates (ccx, swap, cp, cy, ry, t)', mixed, 5],
    ['teleportation with feed-forward (dynamic)', teleport, 3],
  ] as const) {
    it(`${name}: the text sent passes the ISA check of ibm_fez's recorded configuration, and the job completes`, async () => {
      fake.script.samples = ['0x0', '0x1', '0x0', '0x1'];
      fake.script.numBits = clbits;
      const before = fake.submissions;
      const { jobId, r } = await runHeld(wire);
      expect(r.statusCode).toBe(202);
      expect(await settleExecutionJob(app, jobId)).toContain('completed');
      expect(fake.submissions - before).toBe(1);
      const text = ([...fake.jobs.values()].at(-1)!.body.params!.pubs as unknown[][])[0]![0] as string;
      expect(checkIbmIsa(text, fez())).toBeNull();
      expect(text).not.toMatch(/qubit\[|\bq\[/);
      if (name.startsWith('teleportation')) expect(text).toMatch(/^if \(c\[1\] == true\) \{ x \$\d+; \}$/m);
    });
  }

  it('a dynamic circuit on a backend without if_else is refused 422 DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED before anything is sent', async () => {
    await useDevice(undefined);
    const before = fake.submissions;
    const { r } = await runHeld(teleport);
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toMatchObject({ code: 'DEVICE_DYNAMIC_CIRCUITS_UNSUPPORTED', details: { device: 'p1-falcon-7' } });
    expect(fake.submissions).toBe(before);
  });
});

type IbmFakeDevice = { configuration: Record<string, unknown>; properties: Record<string, unknown> };
