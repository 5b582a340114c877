/**
 * What IonQ's API v0.4 reference says a job-creation body looks like (the fake refuses anything
 * else with a 400, as IonQ does), and the basis state a classical circuit ends in, for the fake's
 * results computed from the circuit. Tests only.
 */
const QIS = new Set(['x', 'y', 'z', 'rx', 'ry', 'rz', 'h', 's', 'si', 'v', 'vi', 't', 'ti', 'not', 'cnot', 'swap', 'xx', 'yy', 'zz']);
const NATIVE = new Set(['gpi', 'gpi2', 'ms', 'zz', 'nop']);
// The v0.4 document's JobBackends and NoiseModel lists (tests/fixtures/providers/ionq); Aria is a noise model only.
const BACKENDS = new Set(['simulator', 'qpu.forte-1', 'qpu.forte-enterprise-1']);
const NOISE_MODELS = new Set(['ideal', 'harmony', 'harmony-1', 'harmony-2', 'aria-1', 'aria-2', 'forte-1', 'forte-enterprise-1']);

/** Why a job-creation body breaks the v0.4 reference, or null. */
export function invalidJobBody(body: Record<string, unknown>): string | null {
  if (body['type'] !== 'ionq.circuit.v1') return 'type must be ionq.circuit.v1';
  if (typeof body['backend'] !== 'string' || !BACKENDS.has(body['backend'])) return 'backend must be a known backend';
  if ('target' in body) return '"target" is not a v0.4 field (use "backend")';
  const shots = body['shots'];
  if (shots !== undefined && (!Number.isInteger(shots) || (shots as number) < 1 || (shots as number) > 1_000_000)) return 'shots must be an integer 1–1000000';
  if (body['name'] !== undefined && typeof body['name'] !== 'string') return 'name must be a string';
  const meta = body['metadata'];
  if (meta !== undefined) {
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return 'metadata must be an object';
    const entries = Object.entries(meta);
    if (entries.length > 10) return 'metadata has at most 10 keys';
    for (const [k, v] of entries) if (k.length > 40 || typeof v !== 'string' || v.length > 400) return 'metadata keys ≤ 40 chars, values strings ≤ 400 chars';
  }
  const noise = body['noise'] as { model?: unknown; seed?: unknown } | undefined;
  if (noise !== undefined) {
    if (body['backend'] !== 'simulator') return 'noise applies to the simulator backend only';
    if (typeof noise.model !== 'string' || !NOISE_MODELS.has(noise.model)) return 'noise.model must be a known model';
    if (noise.seed !== undefined && (!Number.isInteger(noise.seed) || (noise.seed as number) < 0 || (noise.seed as number) >= 2 ** 31)) return 'noise.seed must be an int32';
  }
  const input = body['input'] as { gateset?: unknown; qubits?: unknown; circuit?: unknown; format?: unknown } | undefined;
  if (input === undefined || input === null || typeof input !== 'object') return 'input is required';
  if (input.format !== undefined) return '"input.format" is v0.3 (the job type says the format)';
  if (input.gateset !== 'qis' && input.gateset !== 'native') return 'input.gateset must be qis or native';
  if (!Number.isInteger(input.qubits) || (input.qubits as number) < 1) return 'input.qubits must be a positive integer';
  if (!Array.isArray(input.circuit)) return 'input.circuit must be a list';
  const names = input.gateset === 'qis' ? QIS : NATIVE;
  for (const g of input.circuit as Array<Record<string, unknown>>) {
    if (typeof g?.['gate'] !== 'string' || !names.has(g['gate'])) return `unknown ${String(input.gateset)} gate ${JSON.stringify(g?.['gate'])}`;
    const qs = [g['target'], g['control'], ...((g['targets'] as unknown[]) ?? []), ...((g['controls'] as unknown[]) ?? [])].filter((q) => q !== undefined);
    if (qs.length === 0 || qs.some((q) => !Number.isInteger(q) || (q as number) < 0 || (q as number) >= (input.qubits as number)))
      return `gate ${g['gate']} has a qubit outside 0–${(input.qubits as number) - 1}`;
  }
  return null;
}

/** The basis state a classical QIS circuit leaves |0…0⟩ in, as IonQ's key (decimal, qubit 0 least significant); null when not classical. */
export function classicalState(body: Record<string, unknown>): string | null {
  const input = body['input'] as { gateset?: string; circuit?: Array<Record<string, unknown>> } | undefined;
  if (input?.gateset !== 'qis' || !Array.isArray(input.circuit)) return null;
  let s = 0n;
  const bit = (q: unknown) => (s >> BigInt(q as number)) & 1n;
  for (const g of input.circuit) {
    if (g['gate'] === 'x' || g['gate'] === 'not') s ^= 1n << BigInt(g['target'] as number);
    else if (g['gate'] === 'cnot') {
      if (bit(g['control']) === 1n) s ^= 1n << BigInt(g['target'] as number);
    } else if (g['gate'] === 'swap') {
      const [a, b] = g['targets'] as number[];
      if (bit(a) !== bit(b)) s ^= (1n << BigInt(a!)) | (1n << BigInt(b!));
    } else return null;
  }
  return s.toString();
}
