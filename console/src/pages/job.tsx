import { api, jobsApi, type QrailClient } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { Histogram } from '../components/histogram.tsx';
import { ResultDownloads } from '../components/result-downloads.tsx';
import { duration, usd, when } from '../format.ts';
import { href, onLinkClick, queryParam } from '../router.ts';
import { useLoad } from '../use-load.ts';
import { useEffect, useState } from 'preact/hooks';
import { StatusBadge } from './jobs.tsx';

type Job = Awaited<ReturnType<QrailClient['jobs']['get']>>;
type Transition = NonNullable<Job['transitions']>[number];
interface Counts {
  readonly counts: Record<string, number>;
  readonly shots: number;
  readonly bit_order: string;
  readonly probabilities?: Record<string, number> | undefined;
  readonly probabilities_kind?: string;
}

/** Why a job failed, in words, for the codes the jobs machinery sets; capabilities' own codes come with their message. */
const FAILURE_WORDS: Record<string, string> = {
  WORKER_LOST: 'The worker running it stopped and it could not safely run again. Nothing was charged.',
  HOLD_EXPIRED: 'The reservation expired before the job could be charged. Nothing was charged.',
  CAPABILITY_UNAVAILABLE: 'The capability was withdrawn before the job ran. Nothing was charged.',
  CAPABILITY_FAILED: 'The capability failed unexpectedly. Nothing was charged.',
  CANCELED: 'The job was canceled; only what it consumed before stopping was charged.',
};

const isCounts = (r: unknown): r is Counts => typeof r === 'object' && r !== null && 'counts' in r && typeof r.counts === 'object';

function Timeline({ transitions }: { transitions: readonly Transition[] }) {
  return (
    <ol class="timeline" aria-label="State timeline">
      {transitions.map((t, i) => (
        <li key={i}>
          <StatusBadge status={t.to} /> <time dateTime={t.at}>{when(t.at)}</time>
          {i > 0 && <span class="hint"> (+{duration(transitions[i - 1]!.at, t.at)})</span>}
          {t.note !== undefined && <span class="hint"> — {t.note}</span>}
        </li>
      ))}
    </ol>
  );
}

function ResultView({ result }: { result: unknown }) {
  if (result === null || result === undefined) return null;
  if (isCounts(result))
    return <Histogram counts={result.counts} shots={result.shots} bitOrder={result.bit_order} probabilities={result.probabilities_kind === 'exact' ? result.probabilities : undefined} />;
  return (
    <details open>
      <summary>Result (JSON)</summary>
      <pre class="json">{JSON.stringify(result, null, 2)}</pre>
    </details>
  );
}

/** A cancel button for a job still moving; the answer (or its error) replaces the page's copy on the next load. */
function CancelButton({ cancel, onDone }: { cancel: () => Promise<unknown>; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const click = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await cancel();
      onDone();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p>
        <button type="button" class="secondary" disabled={busy} onClick={() => void click()}>
          {busy ? 'Canceling…' : 'Cancel job'}
        </button>
      </p>
      <ErrorBanner error={error} />
    </>
  );
}

function Tags({ tags }: { tags: Readonly<Record<string, string>> }) {
  const entries = Object.entries(tags);
  if (entries.length === 0) return null;
  return (
    <ul class="tags" aria-label="Tags">
      {entries.map(([k, v]) => (
        <li key={k}>
          <code>
            {k}:{v}
          </code>
        </li>
      ))}
    </ul>
  );
}

function AccountJobView({ id }: { id: string }) {
  const job = useLoad(async (signal) => (await jobsApi(signal)).jobs.get(id, { signal }), [id]);
  const moving = job.data !== undefined && job.data.status !== 'completed' && job.data.status !== 'failed';
  useEffect(() => {
    if (!moving) return;
    const t = setInterval(() => job.reload(), 1500);
    return () => clearInterval(t);
  }, [moving, job.reload]);
  const j = job.data;
  return (
    <>
      <ErrorBanner error={job.error} />
      {j !== undefined && (
        <>
          <dl class="figures">
            <div>
              <dt>Status</dt>
              <dd data-testid="job-status">
                <StatusBadge status={j.status} />
              </dd>
            </div>
            <div>
              <dt>Capability</dt>
              <dd>{j.capability_id}</dd>
            </div>
            <div>
              <dt>Quoted</dt>
              <dd>{usd(j.quoted_price)}</dd>
            </div>
            <div>
              <dt>Ceiling</dt>
              <dd>{usd(j.max_total_price)}</dd>
            </div>
            <div>
              <dt>Idempotency key</dt>
              <dd>
                <code>{j.idempotency_key}</code>
              </dd>
            </div>
          </dl>
          <Tags tags={j.tags} />
          {moving && <CancelButton cancel={async () => (await jobsApi()).jobs.cancel(id)} onDone={job.reload} />}
          {j.error_code !== null && (
            <div class="error" role="alert">
              <strong>{FAILURE_WORDS[j.error_code] ?? j.error_message ?? 'The job failed.'}</strong>
              <div class="error-meta">
                code <code>{j.error_code}</code>
                {j.error_message !== null && FAILURE_WORDS[j.error_code] !== undefined && <> · {j.error_message}</>}
              </div>
            </div>
          )}
          {j.transitions !== undefined && (
            <>
              <h2>Timeline</h2>
              <Timeline transitions={j.transitions} />
            </>
          )}
          <h2>Result</h2>
          {j.result === null ? (
            <p>{moving ? 'Running…' : 'No result.'}</p>
          ) : (
            <>
              <ResultView result={j.result} />
              <ResultDownloads result={j.result} name={`job-${id}`} />
            </>
          )}
          <h2>Receipt</h2>
          {j.receipt === null ? (
            <p>No receipt yet: it is issued when the job is charged.</p>
          ) : (
            <dl class="figures">
              <div>
                <dt>Reference</dt>
                <dd>
                  <code>{j.receipt.receipt_reference}</code>
                </dd>
              </div>
              <div>
                <dt>Reserved</dt>
                <dd>{usd(j.receipt.amount_reserved)}</dd>
              </div>
              <div>
                <dt>Charged</dt>
                <dd data-testid="charged">{usd(j.receipt.amount_captured)}</dd>
              </div>
              <div>
                <dt>Released</dt>
                <dd>{usd(j.receipt.amount_released)}</dd>
              </div>
              <div>
                <dt>Balance after</dt>
                <dd>{usd(j.receipt.balance_after)}</dd>
              </div>
              <div>
                <dt>Issued</dt>
                <dd>{when(j.receipt.issued_at)}</dd>
              </div>
            </dl>
          )}
        </>
      )}
    </>
  );
}

/** Execution statuses that change without the person doing anything (held waits for them: no polling). */
const EXECUTION_MOVING = new Set(['queued', 'running', 'continued']);

function ExecutionJobView({ id, provider }: { id: string; provider: 'provider-one' | 'provider-two' }) {
  const job = useLoad((signal) => api().execution.getJob(provider, id, { signal }), [id, provider]);
  const j = job.data;
  // Read again until the job ends, as the Account Job page does: a run queued from the devices page finishes here.
  const moving = j !== undefined && EXECUTION_MOVING.has(j.status);
  useEffect(() => {
    if (!moving) return;
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') job.reload();
    }, 1000);
    return () => clearInterval(t);
  }, [moving, job.reload]);
  // Held jobs are released from the devices page, not canceled (the API says so too).
  const cancelable = j !== undefined && (j.status === 'queued' || j.status === 'running' || j.status === 'continued');
  return (
    <>
      <ErrorBanner error={job.error} />
      {j !== undefined && (
        <>
          <p>
            <span data-testid="execution-status">
              <StatusBadge status={j.status} />
            </span>{' '}
            on <code>{j.device}</code>, {j.shots} shots, submitted {when(j.created_at)}.
          </p>
          {cancelable && <CancelButton cancel={() => api().execution.cancelJob(provider, id)} onDone={job.reload} />}
          {j.failure !== null && <ErrorBanner error={new Error(`${j.failure.code}: ${j.failure.message}`)} />}
          {j.results != null && (
            <Histogram
              counts={j.results.counts}
              shots={j.results.shots}
              bitOrder={j.results.bit_order}
              probabilities={j.results.probabilities_kind === 'exact' ? j.results.probabilities : undefined}
            />
          )}
          {j.results != null && <ResultDownloads result={j.results} name={`job-${id}`} />}
        </>
      )}
    </>
  );
}

export function JobPage({ kind, id }: { kind: 'account' | 'execution'; id: string }) {
  return (
    <section aria-labelledby="job-title">
      <p>
        <a href={href('/jobs')} onClick={(e) => onLinkClick(e, '/jobs')}>
          ← All jobs
        </a>
      </p>
      <h1 id="job-title">
        Job <code>{id}</code>
      </h1>
      {kind === 'account' ? <AccountJobView id={id} /> : <ExecutionJobView id={id} provider={queryParam('provider') === 'provider-two' ? 'provider-two' : 'provider-one'} />}
    </section>
  );
}
