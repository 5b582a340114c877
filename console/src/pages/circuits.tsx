import { useRef, useState } from 'preact/hooks';
import { QrailApiError, api, type Circuit, type QrailClient } from '../api.ts';
import { CircuitDiagram } from '../components/circuit-diagram.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { HeatMap } from '../components/heat-map.tsx';
import { Histogram } from '../components/histogram.tsx';
import { ResultDownloads } from '../components/result-downloads.tsx';
import { href, onLinkClick } from '../router.ts';

type Validation = Awaited<ReturnType<QrailClient['circuits']['validate']>>;
type Optimized = Awaited<ReturnType<QrailClient['circuits']['optimize']>>;
type Coupling = Awaited<ReturnType<QrailClient['coupling']['analyze']>>;
type Metrics = Optimized['metrics_before'];
type Run = Awaited<ReturnType<QrailClient['execution']['runProviderOne']>>;
/** The simulation methods a run may ask for (docs/simulator.md#methods); auto picks one and says why. */
const SIM_METHODS = ['auto', 'statevector', 'stabilizer', 'matrix_product_state', 'density_matrix'] as const;
type SimMethod = (typeof SIM_METHODS)[number];
const METHOD_LABELS: Record<SimMethod, string> = {
  auto: 'auto (chosen for the circuit)',
  statevector: 'state vector',
  stabilizer: 'stabilizer (Clifford)',
  matrix_product_state: 'matrix product state',
  density_matrix: 'density matrix',
};
interface Problem {
  readonly path?: string | undefined;
  readonly code?: string | undefined;
  readonly message: string;
  readonly line?: number | undefined;
  readonly column?: number | undefined;
}

/** The request's circuit from the text: JSON (wire format) when it parses as an object, OpenQASM otherwise. */
export function circuitInput(text: string): Circuit {
  const t = text.trim();
  if (t.startsWith('{')) {
    try {
      // Whatever the JSON holds, the API validates it and answers its problems at their paths.
      return JSON.parse(t) as Circuit;
    } catch {
      // Not JSON after all: let the API say what is wrong with it as QASM.
    }
  }
  return { format: /OPENQASM\s+3/i.test(t) ? 'qasm3' : 'qasm2', source: text };
}

function ProblemList({ problems }: { problems: readonly Problem[] }) {
  return (
    <ul class="problems" aria-label="Problems">
      {problems.map((p, i) => (
        <li key={i}>
          {p.line !== undefined ? (
            <strong>
              line {p.line}
              {p.column !== undefined ? `:${p.column}` : ''}
            </strong>
          ) : (
            <code>{p.path ?? ''}</code>
          )}{' '}
          <code class="error-code">{p.code}</code> {p.message}
        </li>
      ))}
    </ul>
  );
}

function MetricsTable({ before, after }: { before: Metrics; after: Metrics }) {
  const rows: [string, keyof Metrics][] = [
    ['Gates', 'total'],
    ['Two-qubit gates', 'two_qubit'],
    ['T count', 't_count'],
    ['Depth', 'depth'],
  ];
  return (
    <table class="compact">
      <thead>
        <tr>
          <th scope="col">Metric</th>
          <th scope="col" class="num">
            Before
          </th>
          <th scope="col" class="num">
            After
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([label, k]) => (
          <tr key={k}>
            <th scope="row">{label}</th>
            <td class="num">{before[k]}</td>
            <td class="num" data-testid={`after-${k}`}>
              {after[k]}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const PROFILES = ['safe', 'balanced', 'aggressive'] as const;
const HINTS = ['generic', 'provider-one', 'provider-two'] as const;

export function CircuitsPage() {
  const [text, setText] = useState('');
  const [profile, setProfile] = useState<'safe' | 'balanced' | 'aggressive'>('balanced');
  const [hint, setHint] = useState<'generic' | 'provider-one' | 'provider-two'>('generic');
  const [validation, setValidation] = useState<Validation | undefined>(undefined);
  const [analysis, setAnalysis] = useState<Awaited<ReturnType<QrailClient['circuits']['analyze']>> | undefined>(undefined);
  const [optimized, setOptimized] = useState<Optimized | undefined>(undefined);
  const [coupling, setCoupling] = useState<Coupling | undefined>(undefined);
  const [shots, setShots] = useState(1024);
  const [method, setMethod] = useState<SimMethod>('auto');
  const [simulated, setSimulated] = useState<Run | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);

  const run = async (what: string, f: (signal: AbortSignal) => Promise<void>) => {
    abort.current?.abort();
    const ctl = new AbortController();
    abort.current = ctl;
    setBusy(what);
    setError(undefined);
    try {
      await f(ctl.signal);
    } catch (e) {
      if ((e as Error).name !== 'AbortError') setError(e);
    } finally {
      if (abort.current === ctl) setBusy(undefined);
    }
  };
  const validate = () =>
    run('Validating', async (signal) => {
      setOptimized(undefined);
      setAnalysis(undefined);
      setCoupling(undefined);
      setValidation(await api().circuits.validate({ circuit: circuitInput(text) }, { signal }));
    });
  const analyze = () => run('Analyzing', async (signal) => setAnalysis(await api().circuits.analyze({ circuit: circuitInput(text) }, { signal })));
  const optimize = () =>
    run('Optimizing', async (signal) => {
      try {
        setOptimized(await api().circuits.optimize({ circuit: circuitInput(text), profile, backend_hint: hint }, { signal }));
      } catch (e) {
        setOptimized(undefined);
        throw e;
      }
    });
  const couple = () => run('Analyzing coupling', async (signal) => setCoupling(await api().coupling.analyze({ circuit: circuitInput(text), mode: 'auto' }, { signal })));
  // The platform simulator (Provider One, free): the answer carries the counts; a queued answer is waited for.
  const simulate = () =>
    run('Running on the simulator', async (signal) => {
      setSimulated(undefined);
      const c = api();
      const job = await c.execution.runProviderOne({ circuit: circuitInput(text), shots, method }, { signal });
      setSimulated(job.results != null || job.failure !== null ? job : await c.execution.waitForJob('provider-one', job.job_id, { signal }));
    });
  const loadExample = () =>
    run('Loading', async (signal) => {
      const ex = await api().circuits.examples({ name: 'optimizable' }, { signal });
      setText(JSON.stringify(ex.circuit ?? ex.examples[0]?.circuit, null, 2));
      setValidation(undefined);
      setOptimized(undefined);
    });
  const upload = (e: Event) => {
    const file = (e.currentTarget as HTMLInputElement).files?.[0];
    if (file === undefined) return;
    void file.text().then(setText);
  };
  const problems: readonly Problem[] = validation?.errors ?? (error instanceof QrailApiError ? error.problems : []);

  return (
    <section aria-labelledby="circuits-title">
      <h1 id="circuits-title">Circuits</h1>
      <div class="editor">
        <label for="circuit-text">OpenQASM 2 / 3 or wire-format JSON</label>
        <textarea
          id="circuit-text"
          rows={14}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          placeholder={'OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\nh q[0];\ncx q[0],q[1];'}
        />
        <div class="row">
          <label class="file">
            Upload a file
            <input type="file" accept=".qasm,.json,.txt" onChange={upload} />
          </label>
          <button type="button" class="link-button" onClick={() => void loadExample()}>
            Load the “optimizable” example
          </button>
        </div>
        <div class="row">
          <button type="button" onClick={() => void validate()} disabled={text.trim() === ''}>
            Validate
          </button>
          <button type="button" onClick={() => void analyze()} disabled={text.trim() === ''}>
            Analyze
          </button>
          <button type="button" onClick={() => void couple()} disabled={text.trim() === ''}>
            Coupling
          </button>
          <label>
            Profile
            <select value={profile} onChange={(e) => setProfile(PROFILES.find((p) => p === e.currentTarget.value) ?? 'balanced')}>
              <option value="safe">safe</option>
              <option value="balanced">balanced</option>
              <option value="aggressive">aggressive</option>
            </select>
          </label>
          <label>
            Target
            <select value={hint} onChange={(e) => setHint(HINTS.find((h) => h === e.currentTarget.value) ?? 'generic')}>
              <option value="generic">generic</option>
              <option value="provider-one">provider-one</option>
              <option value="provider-two">provider-two</option>
            </select>
          </label>
          <button type="button" onClick={() => void optimize()} disabled={text.trim() === ''}>
            Optimize
          </button>
        </div>
        <div class="row">
          <label>
            Shots
            <input type="number" min={1} max={1000000} value={shots} onInput={(e) => setShots(Number(e.currentTarget.value))} />
          </label>
          <label>
            Method
            <select aria-label="Simulation method" value={method} onChange={(e) => setMethod(SIM_METHODS.find((m) => m === e.currentTarget.value) ?? 'auto')}>
              {SIM_METHODS.map((m) => (
                <option key={m} value={m}>
                  {METHOD_LABELS[m]}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => void simulate()} disabled={text.trim() === '' || !(shots >= 1)}>
            Run on simulator
          </button>
          {busy !== undefined && (
            <span role="status" class="busy">
              {busy}…{' '}
              <button type="button" class="link-button" onClick={() => abort.current?.abort()}>
                Cancel
              </button>
            </span>
          )}
        </div>
      </div>
      <ErrorBanner error={error} />
      {problems.length > 0 && <ProblemList problems={problems} />}
      {validation !== undefined && validation.valid && validation.circuit !== undefined && (
        <>
          <h2>Diagram</h2>
          <p role="status">
            Valid {validation.summary?.input_format}: {validation.summary?.num_qubits} qubits, {validation.summary?.gate_count} gates ({validation.summary?.two_qubit_count} two-qubit), depth{' '}
            {validation.summary?.depth}.
          </p>
          <CircuitDiagram circuit={validation.circuit} label="Circuit diagram" />
        </>
      )}
      {validation?.warnings.map((w, i) => (
        <p key={i} class="warning">
          {w}
        </p>
      ))}
      {optimized !== undefined && (
        <>
          <h2>
            Optimized ({profile}, {hint})
          </h2>
          <MetricsTable before={optimized.metrics_before} after={optimized.metrics_after} />
          <p>
            Proof: {optimized.proof.verified ? 'verified' : 'not verified'} by {optimized.proof.methods.map((m) => `${m.method} (${m.checked})`).join(', ')}; certificate of{' '}
            {optimized.proof.certificate.step_count} steps, digest <code>{optimized.proof.certificate.digest.slice(0, 16)}…</code>. Passes: {optimized.passes.join(', ') || 'none'}.{' '}
            {Math.round(optimized.elapsed_ms)} ms.
          </p>
          {validation?.circuit !== undefined && (
            <>
              <h3>Before</h3>
              <CircuitDiagram circuit={validation.circuit} label="Circuit before optimization" />
            </>
          )}
          <h3>After</h3>
          <CircuitDiagram circuit={optimized.circuit} label="Circuit after optimization" />
        </>
      )}
      {simulated !== undefined && (
        <>
          <h2>Simulator run</h2>
          <p role="status">
            Job{' '}
            <a href={href(`/jobs/execution/${simulated.job_id}?provider=provider-one`)} onClick={(e) => onLinkClick(e, `/jobs/execution/${simulated.job_id}?provider=provider-one`)}>
              <code>{simulated.job_id.slice(0, 8)}</code>
            </a>{' '}
            {simulated.status} on <code>{simulated.device}</code>, {simulated.shots} shots.
            {simulated.results?.meta?.method !== undefined && (
              <>
                {' '}
                Method: <code>{simulated.results.meta.method}</code>
                {simulated.results.meta.method_reason !== undefined && <> ({simulated.results.meta.method_reason})</>}.
              </>
            )}
          </p>
          {simulated.failure !== null && <ErrorBanner error={new Error(`${simulated.failure.code}: ${simulated.failure.message}`)} />}
          {simulated.results != null && (
            <>
              <Histogram counts={simulated.results.counts} shots={simulated.results.shots} bitOrder={simulated.results.bit_order} />
              <ResultDownloads result={simulated.results} name={`simulator-${simulated.job_id}`} />
            </>
          )}
        </>
      )}
      {analysis !== undefined && (
        <>
          <h2>Analysis</h2>
          <pre class="json">{JSON.stringify(analysis, null, 2)}</pre>
        </>
      )}
      {coupling !== undefined && (
        <>
          <h2>Coupling ({coupling.mode_used})</h2>
          {coupling.fallback !== undefined && (
            <p class="warning">
              Measured coupling fell back to qualitative: {coupling.fallback.reason} (<code>{coupling.fallback.reason_code}</code>)
            </p>
          )}
          <div class="row wrap">
            <HeatMap n={coupling.num_qubits} pairs={coupling.qualitative.pairs.map((p) => ({ qubits: p.qubits, value: p.score }))} max={1} label="Qualitative coupling score" unit="" />
            {coupling.measured !== undefined && (
              <HeatMap
                n={coupling.num_qubits}
                pairs={coupling.measured.pairs.map((p) => ({ qubits: p.qubits, value: p.mutual_information_bits }))}
                max={2}
                label="Measured mutual information"
                unit="bits"
              />
            )}
          </div>
        </>
      )}
    </section>
  );
}
