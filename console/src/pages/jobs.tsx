import { useEffect, useState } from 'preact/hooks';
import { ErrorBanner } from '../components/error-banner.tsx';
import { usd, when } from '../format.ts';
import { jobsApi, present } from '../api.ts';
import { href, navigate, onLinkClick } from '../router.ts';
import { useLoad } from '../use-load.ts';

const TERMINAL = new Set(['completed', 'failed']);
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
    async (signal) => {
      const c = await jobsApi(signal);
      if (applied !== '' && UUID.test(applied)) return [await c.jobs.get(applied, { signal })];
      const page = await c.jobs.list(present({ limit: 100, idempotency_key: applied === '' ? undefined : applied }), { signal });
      return page.jobs;
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
          <caption class="sr-only">Account Jobs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Capability</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Price
              </th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((j) => (
              <tr key={j.job_id} class="clickable" onClick={() => navigate(`/jobs/account/${j.job_id}`)}>
                <td>
                  <a href={href(`/jobs/account/${j.job_id}`)} onClick={(e) => onLinkClick(e, `/jobs/account/${j.job_id}`)}>
                    <code>{j.job_id.slice(0, 8)}</code>
                  </a>
                </td>
                <td>{j.capability_id}</td>
                <td>
                  <StatusBadge status={j.status} />
                  {j.error_code !== null && <code class="error-code"> {j.error_code}</code>}
                </td>
                <td class="num">{usd(j.quoted_price)}</td>
                <td>{when(j.created_at)}</td>
              </tr>
            ))}
            {jobs.data !== undefined && shown.length === 0 && (
              <tr>
                <td colSpan={5}>No jobs{status || applied ? ' match' : ' yet: agents submit them with an API key'}.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
