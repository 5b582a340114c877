import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { when } from '../format.ts';

type AuditPage = Awaited<ReturnType<ReturnType<typeof api>['orgs']['audit']>>;
type AuditEvent = AuditPage['events'][number];

interface Filters {
  readonly action: string;
  readonly actor: string;
  readonly since: string;
}

const queryOf = (f: Filters) => ({
  ...(f.action === '' ? {} : { action: f.action }),
  ...(f.actor === '' ? {} : { actor_id: f.actor }),
  ...(f.since === '' ? {} : { since: new Date(f.since).toISOString() }),
});

const PAGE = 25;

/**
 * The audit log, newest first: filters, keyset pages ("More" asks for the events before the last
 * one shown) and the shown filter's CSV, fetched with the session (a plain link would carry none).
 */
export function AuditLog({ orgId, refresh }: { orgId: string; refresh: number }) {
  const [draft, setDraft] = useState<Filters>({ action: '', actor: '', since: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [csv, setCsv] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);

  const load = async (cursor: string | null, signal?: AbortSignal) => {
    const page = await api().orgs.audit(orgId, { ...queryOf(filters), limit: PAGE, ...(cursor === null ? {} : { cursor }) }, { signal });
    setEvents((shown) => (cursor === null ? page.events : [...shown, ...page.events]));
    setNext(page.next_cursor);
  };
  useEffect(() => {
    const ctl = new AbortController();
    setError(undefined);
    setCsv(undefined);
    load(null, ctl.signal).catch((e: unknown) => ctl.signal.aborted || setError(e));
    api()
      .request('get', '/v1/orgs/{org_id}/audit', { params: { org_id: orgId }, query: { ...queryOf(filters), limit: 200, format: 'csv' }, signal: ctl.signal })
      .then((r) => ctl.signal.aborted || setCsv(typeof r.data === 'string' ? r.data : undefined))
      .catch(() => undefined);
    return () => ctl.abort();
  }, [orgId, filters, tick, refresh]);
  const csvUrl = useMemo(() => (csv === undefined ? undefined : URL.createObjectURL(new Blob([csv], { type: 'text/csv' }))), [csv]);
  useEffect(() => () => csvUrl !== undefined && URL.revokeObjectURL(csvUrl), [csvUrl]);

  return (
    <>
      <h2 id="audit-title">Audit log</h2>
      <form
        class="inline-form"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
          setTick((t) => t + 1);
        }}
      >
        <label>
          Action
          <input name="action" placeholder="e.g. member.role_changed" pattern="^[a-z_.]+$" value={draft.action} onInput={(e) => setDraft({ ...draft, action: e.currentTarget.value })} />
        </label>
        <label>
          Actor id
          <input name="actor" value={draft.actor} onInput={(e) => setDraft({ ...draft, actor: e.currentTarget.value })} />
        </label>
        <label>
          Since
          <input name="since" type="datetime-local" value={draft.since} onInput={(e) => setDraft({ ...draft, since: e.currentTarget.value })} />
        </label>
        <button type="submit">Show</button>
      </form>
      <ErrorBanner error={error} />
      <div class="table-wrap">
        <table aria-labelledby="audit-title">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.event_id}>
                <td>{when(e.at)}</td>
                <td>
                  <code>{e.action}</code>
                </td>
                <td>
                  {e.actor.kind} {e.actor.id ?? ''}
                </td>
                <td>{e.target ?? '—'}</td>
                <td>{Object.keys(e.details).length === 0 ? '—' : <code>{JSON.stringify(e.details)}</code>}</td>
              </tr>
            ))}
            {events.length === 0 && error === undefined && (
              <tr>
                <td colSpan={5}>No events match.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <p class="row">
        {next !== null && (
          <button type="button" onClick={() => void load(next).catch(setError)}>
            More
          </button>
        )}
        {csvUrl !== undefined && (
          <a href={csvUrl} download={`audit-${orgId}.csv`}>
            Download audit log (CSV)
          </a>
        )}
      </p>
    </>
  );
}
