import { useState } from 'preact/hooks';
import { api, present } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { usd, when } from '../format.ts';
import { useLoad } from '../use-load.ts';

const KINDS = ['topup', 'grant', 'hold', 'capture', 'release', 'expire', 'refund', 'adjustment'] as const;
type Kind = (typeof KINDS)[number];
const isKind = (s: string): s is Kind => (KINDS as readonly string[]).includes(s);

/** The ledger, 20 per page, filtered by kind and dates; pages are walked with the API's cursors. */
export function LedgerTable() {
  const [kind, setKind] = useState<Kind | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  // Cursors of the pages before this one, to go back without the API needing a "previous" cursor.
  const [trail, setTrail] = useState<(string | undefined)[]>([undefined]);
  const cursor = trail[trail.length - 1];
  const page = useLoad(
    (signal) =>
      api().billing.ledger(
        present({
          limit: 20,
          kind: kind === '' ? undefined : kind,
          from: from ? new Date(`${from}T00:00:00`).toISOString() : undefined,
          to: to ? new Date(`${to}T00:00:00`).toISOString() : undefined,
          cursor,
        }),
        { signal },
      ),
    [kind, from, to, cursor],
  );
  const reset = () => setTrail([undefined]);
  return (
    <div>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Ledger filters">
        <label>
          Kind
          <select
            value={kind}
            onChange={(e) => {
              const v = e.currentTarget.value;
              setKind(isKind(v) ? v : '');
              reset();
            }}
          >
            <option value="">All</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input
            type="date"
            value={from}
            onChange={(e) => {
              setFrom(e.currentTarget.value);
              reset();
            }}
          />
        </label>
        <label>
          Before
          <input
            type="date"
            value={to}
            onChange={(e) => {
              setTo(e.currentTarget.value);
              reset();
            }}
          />
        </label>
      </form>
      <ErrorBanner error={page.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Ledger transfers, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Description</th>
              <th scope="col" class="num">
                Available
              </th>
              <th scope="col" class="num">
                Held
              </th>
            </tr>
          </thead>
          <tbody>
            {(page.data?.entries ?? []).map((e) => (
              <tr key={e.transfer_id}>
                <td>{when(e.created_at)}</td>
                <td>{e.kind}</td>
                <td>{e.description}</td>
                <td class="num">{usd(e.available_change)}</td>
                <td class="num">{usd(e.held_change)}</td>
              </tr>
            ))}
            {page.data !== undefined && page.data.entries.length === 0 && (
              <tr>
                <td colSpan={5}>No transfers{kind || from || to ? ' match these filters' : ' yet'}.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div class="pager">
        <button type="button" disabled={trail.length <= 1} onClick={() => setTrail(trail.slice(0, -1))}>
          Newer
        </button>
        <span>Page {trail.length}</span>
        <button type="button" disabled={page.data?.next_cursor == null} onClick={() => page.data?.next_cursor && setTrail([...trail, page.data.next_cursor])}>
          Older
        </button>
      </div>
    </div>
  );
}
