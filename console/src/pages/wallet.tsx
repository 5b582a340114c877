import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { SpendChart } from '../components/spend-chart.tsx';
import { usd, when } from '../format.ts';
import { queryParam } from '../router.ts';
import { useLoad } from '../use-load.ts';
import { LedgerTable } from './ledger-table.tsx';
import { SpendControlsForm } from './spend-controls.tsx';

function TopUp({ onDone }: { onDone: () => void }) {
  const [amount, setAmount] = useState('25.00');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const go = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const back = `${location.origin}/console/wallet?checkout=done`;
      const s = await api().billing.checkoutSession({ amount, success_url: back, cancel_url: `${location.origin}/console/wallet?checkout=canceled` });
      if (s.url === null) throw new Error('The processor returned no checkout page.');
      // The processor's checkout page (the sandbox's own page in the embedded default) takes the payment.
      location.assign(s.url);
    } catch (err) {
      setError(err);
      setBusy(false);
      onDone();
    }
  };
  return (
    <form class="inline-form" onSubmit={(e) => void go(e)}>
      <label>
        Top-up amount (USD)
        <input name="amount" inputMode="decimal" pattern="^\d{1,9}(\.\d{1,2})?$" required value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Opening checkout…' : 'Top up'}
      </button>
      <ErrorBanner error={error} />
    </form>
  );
}

export function WalletPage() {
  const wallet = useLoad((signal) => api().billing.wallet({ signal }), []);
  const dash = useLoad((signal) => api().billing.dashboard({ days: 30 }, { signal }), []);
  const checkout = queryParam('checkout');
  return (
    <section aria-labelledby="wallet-title">
      <h1 id="wallet-title">Wallet</h1>
      {checkout !== undefined && checkout !== 'canceled' && (
        <p class="notice" role="status">
          Payment received: the top-up is in the wallet once the processor confirms it.
        </p>
      )}
      {checkout === 'canceled' && (
        <p class="notice" role="status">
          Checkout canceled: nothing was charged.
        </p>
      )}
      <ErrorBanner error={wallet.error} />
      {wallet.data !== undefined && (
        <dl class="figures">
          <div>
            <dt>Available</dt>
            <dd data-testid="available">{usd(wallet.data.available)}</dd>
          </div>
          <div>
            <dt>Held</dt>
            <dd>{usd(wallet.data.held)}</dd>
          </div>
          <div>
            <dt>Total</dt>
            <dd>{usd(wallet.data.total)}</dd>
          </div>
          <div>
            <dt>As of</dt>
            <dd>{when(wallet.data.as_of)}</dd>
          </div>
        </dl>
      )}
      <TopUp onDone={wallet.reload} />
      <h2>Spend, last 30 days</h2>
      <ErrorBanner error={dash.error} />
      {dash.data !== undefined && (
        <>
          <p>
            {usd(dash.data.totals.spend)} over {dash.data.totals.jobs} jobs.
          </p>
          <SpendChart days={dash.data.spend_per_day} />
        </>
      )}
      <h2>Ledger</h2>
      <LedgerTable />
      <h2>Spend controls and auto-recharge</h2>
      <SpendControlsForm />
    </section>
  );
}
