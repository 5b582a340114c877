import { useEffect, useState } from 'preact/hooks';
import { api, type QrailClient } from '../api.ts';
import { CouplingMap } from '../components/coupling-map.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { microseconds, usd, when } from '../format.ts';
import { href, navigate } from '../router.ts';
import { useLoad } from '../use-load.ts';
import { circuitInput } from './circuits.tsx';

type Device = Awaited<ReturnType<QrailClient['execution']['devices']>>['devices'][number];
type Quote = Awaited<ReturnType<QrailClient['billing']['quote']>>;
type Hold = Pick<Awaited<ReturnType<QrailClient['billing']['hold']>>, 'job_id' | 'status' | 'amount' | 'expires_at'>;

function Countdown({ until }: { until: string }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const s = Math.max(0, Math.round((Date.parse(until) - now) / 1000));
  return (
    <span aria-live="off" data-testid="countdown">
      {s === 0 ? 'expired' : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} left`}
    </span>
  );
}

/** Quote → hold → run → or release, for one hardware device. */
function HardwareRun({ device }: { device: Device }) {
  const [shots, setShots] = useState(100);
  const [quote, setQuote] = useState<Quote | undefined>(undefined);
  const [hold, setHold] = useState<Hold | undefined>(undefined);
  const [circuit, setCircuit] = useState('OPENQASM 2.0;\ninclude "qelib1.inc";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;');
  const [error, setError] = useState<unknown>(undefined);
  const act = async (f: () => Promise<void>) => {
    setError(undefined);
    try {
      await f();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="hardware-run">
      <h3>Run on {device.name}</h3>
      <div class="row">
        <label>
          Shots
          <input type="number" min={1} max={100000} value={shots} onInput={(e) => setShots(Number(e.currentTarget.value))} />
        </label>
        <button type="button" onClick={() => void act(async () => setQuote(await api().billing.quote({ provider: 'provider-two', device: device.id, shots, tasks: 1 })))}>
          Get a quote
        </button>
      </div>
      {quote !== undefined && (
        <p role="status">
          Quote <code>{quote.quote_id.slice(0, 8)}</code>: {usd(quote.total)} for {quote.shots} shots, valid until {when(quote.valid_until)}.{' '}
          {hold === undefined && (
            <button type="button" onClick={() => void act(async () => setHold(await api().billing.hold({ quote_id: quote.quote_id })))}>
              Hold {usd(quote.total)}
            </button>
          )}
        </p>
      )}
      {hold !== undefined && (
        <div class="hold" role="region" aria-label="Held funds">
          <p>
            Held {usd(hold.amount)} for job <code>{hold.job_id.slice(0, 8)}</code> — <span data-testid="hold-status">{hold.status}</span>
            {hold.status === 'held' && (
              <>
                , <Countdown until={hold.expires_at} />
              </>
            )}
            .
          </p>
          {hold.status === 'held' && (
            <>
              <label for="held-circuit">Circuit to run</label>
              <textarea id="held-circuit" rows={6} value={circuit} onInput={(e) => setCircuit(e.currentTarget.value)} />
              <div class="row">
                <button
                  type="button"
                  onClick={() =>
                    void act(async () => {
                      const j = await api().execution.continueHeldJob(hold.job_id, { circuit: circuitInput(circuit) });
                      navigate(`/jobs/execution/${j.job_id}?provider=provider-two`);
                    })
                  }
                >
                  Run
                </button>
                <button type="button" class="danger" onClick={() => void act(async () => setHold(await api().billing.releaseHold(hold.job_id)))}>
                  Release the hold
                </button>
              </div>
            </>
          )}
        </div>
      )}
      <ErrorBanner error={error} />
    </div>
  );
}

/** A figure the provider may not report (null → "—"). */
const fixed = (x: number | null, scale: number, digits: number): string => (x === null ? '—' : (x * scale).toFixed(digits));

type Reason = Device['reasons'][number];

/** The API's reasons, in words: why an option cannot run now and what to do about it. */
const because = (reasons: readonly Reason[]): string => reasons.map((r) => r.message).join(' ');

/**
 * What the card's button means: ready (and, for hardware, that a quote and a hold come first), or
 * not available with the API's reasons (not configured, credentials missing, device offline,
 * wallet not funded, spend controls) — never a status badge beside a disabled button with no word why.
 */
function Readiness({ d }: { d: Device }) {
  // A hold being required is the normal path for hardware, not a reason it cannot run.
  const blocking = d.reasons.filter((r) => r.code !== 'quote_hold_required');
  const text = d.available
    ? `Ready${d.requires_hold ? ': hardware runs need a quote and a hold of the price first' : ''}.`
    : `Not available: ${because(blocking.length > 0 ? blocking : d.reasons) || (d.status_detail ?? `the device is ${d.status}`)}`;
  return (
    <p class={d.available ? 'hint' : 'warning'} data-testid="readiness">
      {text}
    </p>
  );
}

type Mitigation = NonNullable<Device['mitigation']>;

/** The error mitigation a run on the device may ask for now, each option in words (and why not). */
function MitigationOptions({ m }: { m: Mitigation }) {
  const calibration = m.readout.calibration;
  const rows: Array<[string, { available: boolean; reason?: string | undefined }, string]> = [
    [
      'Readout mitigation',
      m.readout,
      calibration === undefined ? '' : ` (${calibration.source === 'provider' ? 'provider' : 'deployment'} per-qubit calibration of ${when(calibration.calibrated_at)})`,
    ],
    ['Zero-noise extrapolation', m.zne, ' (expectation values)'],
    ['IonQ debiasing', m.debiasing, ' (applied by IonQ, 500 shots or more)'],
  ];
  return (
    <ul class="mitigation" aria-label="Error mitigation" data-testid="mitigation">
      {rows.map(([name, o, detail]) => (
        <li key={name}>
          {name}: {o.available ? `offered${detail}` : `not offered — ${o.reason ?? 'not on this device'}`}
        </li>
      ))}
    </ul>
  );
}

function DeviceCard({ d, runnable }: { d: Device; runnable: boolean }) {
  const [open, setOpen] = useState(false);
  const cal = d.calibration;
  return (
    <article class="device" aria-labelledby={`dev-${d.id}`}>
      <h2 id={`dev-${d.id}`}>
        {d.name} <span class={`badge badge-${d.status}`}>{d.status}</span>
      </h2>
      <p>
        <code>{d.id}</code> · {d.kind} · {d.num_qubits} qubits · queue {d.queue_depth}
        {d.status_detail !== null && <> · {d.status_detail}</>}
      </p>
      {d.backend !== null && (
        <p data-testid="backend">
          Runs on <code>{d.backend}</code>
          {d.provider_queue_length !== null && <>, {d.provider_queue_length} jobs waiting at the provider</>}
          {d.faulty.qubits.length + d.faulty.pairs.length > 0 && (
            <>; never routed over the faulty {[...d.faulty.qubits.map((q) => `qubit ${q}`), ...d.faulty.pairs.map(([a, b]) => `pair ${a}–${b}`)].join(', ')}</>
          )}
          .
        </p>
      )}
      <div class="row wrap">
        <CouplingMap qubits={d.num_qubits} edges={d.coupling_map ?? undefined} label={`${d.name} connectivity`} />
        <dl class="figures">
          <div>
            <dt>Native gates</dt>
            <dd>{d.native_gates.join(', ')}</dd>
          </div>
          <div>
            <dt>Price</dt>
            <dd>{d.pricing === null ? 'not priced' : `${usd(d.pricing.per_task)} per task + ${usd(d.pricing.per_shot)} per shot`}</dd>
          </div>
          {cal !== null && (
            <>
              <div>
                <dt>Calibrated</dt>
                <dd>
                  {when(cal.calibrated_at)} ({cal.source === 'provider' ? 'by the provider' : 'deployment figures'})
                </dd>
              </div>
              <div>
                <dt>Mean T1 / T2</dt>
                <dd data-testid="t1-t2">
                  {microseconds(cal.mean.t1_us)} / {microseconds(cal.mean.t2_us)}
                </dd>
              </div>
              <div>
                <dt>Mean 1q / readout error</dt>
                <dd>
                  {fixed(cal.mean.error_1q, 100, 3)} % / {fixed(cal.mean.readout_error, 100, 2)} %
                </dd>
              </div>
            </>
          )}
        </dl>
      </div>
      {d.provider_systems.length > 0 && (
        <>
          <p>{d.provider === 'provider-two' ? 'IonQ lists these systems now' : 'IBM Quantum reports these backends now'}:</p>
          <ul aria-label="Provider systems" data-testid="provider-systems">
            {d.provider_systems.map((x) => (
              <li key={x.backend}>
                <code>{x.backend}</code> <span class={`badge badge-${x.status}`}>{x.status}</span> {x.num_qubits} qubits{x.backend === d.backend ? ' (this device)' : ''}
              </li>
            ))}
          </ul>
        </>
      )}
      {d.mitigation !== null && <MitigationOptions m={d.mitigation} />}
      <Readiness d={d} />
      {d.requires_hold && !runnable && (
        <p class="hint">
          Run it through the API: a quote with <code>"provider": "{d.provider}"</code>, a hold, then <code>POST /v1/execute/{d.provider}/held/&#123;job_id&#125;</code>.
        </p>
      )}
      {d.requires_hold &&
        runnable &&
        (open ? (
          <HardwareRun device={d} />
        ) : (
          <button type="button" onClick={() => setOpen(true)} disabled={!d.available}>
            Quote and run…
          </button>
        ))}
    </article>
  );
}

export function DevicesPage() {
  const devices = useLoad((signal) => api().execution.devices({ signal }), []);
  // Provider one's hardware as its provider reports it (IBM Quantum when configured); runs from here are Provider Two's.
  const p1Devices = useLoad((signal) => api().execution.devices({ signal, provider: 'provider-one' }), []);
  const caps = useLoad((signal) => api().execution.capabilities({ signal }), []);
  const p1 = caps.data === undefined ? [] : [...caps.data.provider_one.simulator.devices, ...caps.data.provider_one.hardware.devices];
  return (
    <section aria-labelledby="devices-title">
      <h1 id="devices-title">Devices</h1>
      <p>
        Simulators run at once and answer with counts; hardware needs a quote and a hold first. Held funds return if the run is released or the hold expires. See <a href={href('/jobs')}>Jobs</a> for
        runs.
      </p>
      <h2>Provider one</h2>
      <ErrorBanner error={caps.error} />
      <ul aria-label="Provider one devices">
        {p1.map((d) => (
          <li key={d.device}>
            <code>{d.device}</code> <span class={`badge badge-${d.status}`}>{d.status}</span> {d.ready ? 'ready' : `not ready: ${because(d.reasons) || `the device is ${d.status}`}`}
          </li>
        ))}
      </ul>
      <ErrorBanner error={p1Devices.error} />
      {(p1Devices.data?.devices ?? [])
        .filter((d) => d.kind === 'hardware')
        .map((d) => (
          <DeviceCard key={d.id} d={d} runnable={false} />
        ))}
      <h2>Provider two</h2>
      <ErrorBanner error={devices.error} />
      {(devices.data?.devices ?? []).map((d) => (
        <DeviceCard key={d.id} d={d} runnable={true} />
      ))}
    </section>
  );
}
