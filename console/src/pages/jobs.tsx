import { useEffect, useState } from 'preact/hooks';
import { ErrorBanner } from '../components/error-banner.tsx';
import { usd, when } from '../format.ts';
import { jobsApi, present } from '../api.ts';
import { href, navigate, onLinkClick } from '../router.ts';
import { useLoad } from '../use-load.ts';

interface Row {
  readonly kind: 'account' | 'execution';
  readonly id: string;
  readonly what: string;
  readonly status: string;
  readonly price: string;
  readonly error: string | null;
  readonly created: string;
  readonly path: string;
}

const TERMINAL = new Set(['completed', 'failed', 'released', 'expired']);
const STATUSES = ['', 'queued', 'running', 'completed', 'failed'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status.replace('_', ' ')}</span>;
}

/** Account Jobs newest first, filtered and searched; refreshed every few seconds while any is still moving. */
export function JobsPage() {
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const jobs = useLoad(
    async (signal): Promise<Row[]> => {
      const c = await jobsApi(signal);
      const byId = applied !== '' && UUID.test(applied);
      const [account, execution] = await Promise.all([
        byId
          ? c.jobs.get(applied, { signal }).then(
              (j) => [j],
              () => [],
            )
          : c.jobs.list(present({ limit: 100, idempotency_key: applied === '' ? undefined : applied }), { signal }).then((p) => p.jobs),
        // Execution jobs have no idempotency key to search by: shown when searching by id, or not searching.
        applied === '' || byId ? c.execution.listJobs({ limit: 100 }, { signal }).then((p) => p.jobs.filter((j) => !byId || j.job_id === applied.toLowerCase())) : Promise.resolve([]),
      ]);
      const rows: Row[] = [
        ...account.map((j) => ({
          kind: 'account' as const,
          id: j.job_id,
          what: j.capability_id,
          status: j.status,
          price: j.quoted_price,
          error: j.error_code,
          created: j.created_at,
          path: `/jobs/account/${j.job_id}`,
        })),
        ...execution.map((j) => ({
          kind: 'execution' as const,
          id: j.job_id,
          what: `${j.provider} · ${j.device}`,
          status: j.status,
          price: j.cost.actual ?? j.cost.estimated,
          error: j.failure?.code ?? null,
          created: j.created_at ?? '',
          path: `/jobs/execution/${j.job_id}?provider=${j.provider}`,
        })),
      ];
      return rows.sort((a, b) => Date.parse(b.created) - Date.parse(a.created));
    },
    [applied],
  );
  const moving = (jobs.data ?? []).some((j) => !TERMINAL.has(j.status));
  useEffect(() => {
    if (!moving) return;
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') jobs.reload();
    }, 2000);
    return () => clearInterval(t);
  }, [moving, jobs.reload]);
  const shown = (jobs.data ?? []).filter((j) => status === '' || j.status === status);
  return (
    <section aria-labelledby="jobs-title">
      <h1 id="jobs-title">Jobs</h1>
      <p>Account Jobs (paid capabilities agents submit) and execution jobs (runs on the providers' devices) in one list.</p>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(search.trim());
        }}
      >
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s === '' ? 'All' : s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Job id or idempotency key
          <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} maxLength={128} />
        </label>
        <button type="submit">Search</button>
        {applied !== '' && (
          <button
            type="button"
            class="link-button"
            onClick={() => {
              setSearch('');
              setApplied('');
            }}
          >
            Clear
          </button>
        )}
      </form>
      {moving && (
        <p class="hint" role="status">
          Updating live while jobs are running.
        </p>
      )}
      <ErrorBanner error={jobs.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Account Jobs and execution jobs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">Capability or device</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Price
              </th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((j) => (
              <tr key={j.id} class="clickable" onClick={() => navigate(j.path)}>
                <td>
                  <a href={href(j.path)} onClick={(e) => onLinkClick(e, j.path)}>
                    <code>{j.id.slice(0, 8)}</code>
                  </a>
                </td>
                <td>{j.kind === 'account' ? 'Account Job' : 'execution'}</td>
                <td>{j.what}</td>
                <td>
                  <StatusBadge status={j.status} />
                  {j.error !== null && <code class="error-code"> {j.error}</code>}
                </td>
                <td class="num">{usd(j.price)}</td>
                <td>{when(j.created)}</td>
              </tr>
            ))}
            {jobs.data !== undefined && shown.length === 0 && (
              <tr>
                <td colSpan={6}>No jobs{status || applied ? ' match' : ' yet: agents submit them with an API key'}.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
