import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Spend per day as a step chart (uPlot), with the day's job count in the legend. */
export function SpendChart({ days }: { days: readonly { date: string; spend: string; jobs: number }[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (el === null || days.length === 0) return;
    const xs = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    // Six-decimal strings to dollars for drawing only; amounts shown as text stay exact.
    const ys = days.map((d) => Number(d.spend));
    const jobs = days.map((d) => d.jobs);
    const width = Math.max(280, Math.min(900, el.clientWidth || 600));
    const plot = new uPlot(
      {
        width,
        height: 220,
        scales: { x: { time: true } },
        series: [
          {},
          { label: 'Spend (USD)', stroke: '#1f5fbf', fill: 'rgba(31,95,191,0.12)', paths: uPlot.paths.stepped!({ align: 1 }), value: (_u, v) => (v == null ? '—' : `$${v.toFixed(2)}`) },
          { label: 'Jobs', stroke: '#7a7a7a', scale: 'jobs', value: (_u, v) => (v == null ? '—' : String(v)) },
        ],
        axes: [{}, { label: 'USD', values: (_u, vals) => vals.map((v) => `$${v}`) }, { side: 1, scale: 'jobs', label: 'jobs', grid: { show: false } }],
      },
      [xs, ys, jobs],
      el,
    );
    return () => plot.destroy();
  }, [days]);
  if (days.length === 0) return <p>No spend in this period.</p>;
  return <div ref={host} class="spend-chart" role="img" aria-label={`Spend per day over ${days.length} days`} />;
}
