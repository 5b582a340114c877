import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { usd } from '../format.ts';
import { useLoad } from '../use-load.ts';

/** "12.500000" → "12.50" for editing; empty means no limit. */
const edit = (s: string | null) => (s === null ? '' : s.replace(/(\.\d\d)0+$/, '$1'));
const limit = (s: string) => (s.trim() === '' ? null : s.trim());

/** Spend limits and auto-recharge, validated by the API: its messages are shown next to the form. */
export function SpendControlsForm() {
  const current = useLoad((signal) => api().billing.spendControls({ signal }), []);
  const [f, setF] = useState({ daily: '', monthly: '', perJob: '', hardware: true, arOn: false, threshold: '', rechargeTo: '', cap: '' });
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    const c = current.data;
    if (c === undefined) return;
    setF({
      daily: edit(c.daily_limit),
      monthly: edit(c.monthly_limit),
      perJob: edit(c.per_job_max),
      hardware: c.hardware_allowed,
      arOn: c.auto_recharge.enabled,
      threshold: edit(c.auto_recharge.threshold),
      rechargeTo: edit(c.auto_recharge.recharge_to),
      cap: edit(c.auto_recharge.monthly_cap),
    });
  }, [current.data]);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setSaved(false);
    try {
      await api().billing.updateSpendControls({
        daily_limit: limit(f.daily),
        monthly_limit: limit(f.monthly),
        per_job_max: limit(f.perJob),
        hardware_allowed: f.hardware,
        auto_recharge: { enabled: f.arOn, threshold: limit(f.threshold), recharge_to: limit(f.rechargeTo), monthly_cap: limit(f.cap) },
      });
      setSaved(true);
      current.reload();
    } catch (err) {
      setError(err);
    }
  };
  const text = (key: 'daily' | 'monthly' | 'perJob' | 'threshold' | 'rechargeTo' | 'cap', label: string, hint: string) => (
    <label>
      {label}
      <input name={key} inputMode="decimal" placeholder="no limit" value={f[key]} onInput={(e) => setF({ ...f, [key]: e.currentTarget.value })} aria-describedby={`${key}-hint`} />
      <span id={`${key}-hint`} class="hint">
        {hint}
      </span>
    </label>
  );
  return (
    <form class="settings" onSubmit={(e) => void save(e)} aria-label="Spend controls and auto-recharge">
      <ErrorBanner error={current.error} />
      {current.data !== undefined && (
        <p>
          Spent today {usd(current.data.spent_today)}, this month {usd(current.data.spent_this_month)}.{current.data.auto_recharge.paused && ' Auto-recharge is paused after failed charges.'}
        </p>
      )}
      <fieldset>
        <legend>Spend limits (USD; empty for none)</legend>
        {text('daily', 'Daily limit', 'Holds placed today may not exceed it.')}
        {text('monthly', 'Monthly limit', 'Holds placed this calendar month (UTC).')}
        {text('perJob', 'Largest job', 'No single job may cost more.')}
        <label class="check">
          <input type="checkbox" checked={f.hardware} onChange={(e) => setF({ ...f, hardware: e.currentTarget.checked })} /> Allow hardware runs
        </label>
      </fieldset>
      <fieldset>
        <legend>Auto-recharge</legend>
        <label class="check">
          <input type="checkbox" checked={f.arOn} onChange={(e) => setF({ ...f, arOn: e.currentTarget.checked })} /> Recharge automatically
        </label>
        {text('threshold', 'When available falls below', 'Checked after every charge.')}
        {text('rechargeTo', 'Recharge up to', 'The balance to top back up to.')}
        {text('cap', 'Monthly cap', 'At most this much recharged per month.')}
      </fieldset>
      <ErrorBanner error={error} />
      {saved && (
        <p class="notice" role="status">
          Saved.
        </p>
      )}
      <button type="submit">Save controls</button>
    </form>
  );
}
