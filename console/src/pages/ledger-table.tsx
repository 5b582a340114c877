import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { usd, when } from '../format.ts';
import { useLoad } from '../use-load.ts';

interface Entry {
  readonly transfer_id: string;
  readonly kind: string;
  readonly description: string;
  readonly amount: string;
  readonly available_change: string;
  readonly held_change: string;
  readonly created_at: string;
}
interface Page {
  readonly entries: readonly Entry[];
  readonly next_cursor: string | null;
}

const KINDS = ['', 'topup', 'grant', 'hold', 'capture', 'release', 'expire', 'refund', 'adjustment'];

/** The ledger, 20 per page, filtered by kind and dates; pages are walked with the API's cursors. */
export function LedgerTable() {
  const [kind, setKind] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  // Cursors of the pages before this one, to go back without the API needing a "previous" cursor.
  const [trail, setTrail] = useState<(string | undefined)[]>([undefined]);
  const cursor = trail[trail.length - 1];
  const page = useLoad(
    (signal) =>
      call<Page>('GET', '/v1/billing/ledger', {
        signal,
        query: { limit: 20, kind: kind || undefined, from: from ? new Date(`${from}T00:00:00`).toISOString() : undefined, to: to ? new Date(`${to}T00:00:00`).toISOString() : undefined, cursor },
      }),
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
              setKind(e.currentTarget.value);
              reset();
            }}
          >
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k === '' ? 'All' : k}
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
