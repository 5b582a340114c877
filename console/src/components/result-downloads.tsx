import { useEffect, useMemo } from 'preact/hooks';

/** Counts as CSV: a header, then one outcome per line in bit-string order (keys are bits and spaces, never commas). */
export function countsCsv(counts: Readonly<Record<string, number>>): string {
  const rows = Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `outcome,count\n${rows.map(([k, n]) => `${k},${n}`).join('\n')}\n`;
}

const countsOf = (r: unknown): Record<string, number> | undefined =>
  typeof r === 'object' && r !== null && 'counts' in r && typeof r.counts === 'object' && r.counts !== null ? (r.counts as Record<string, number>) : undefined;

/** An object URL for `text`, revoked when the text changes or the component goes. */
function useBlobUrl(text: string | undefined, type: string): string | undefined {
  const url = useMemo(() => (text === undefined ? undefined : URL.createObjectURL(new Blob([text], { type }))), [text, type]);
  useEffect(() => () => url !== undefined && URL.revokeObjectURL(url), [url]);
  return url;
}

/**
 * Download links for a run's result: the whole result as JSON, and its counts as CSV when it has
 * counts. Made in the browser from what the page already holds: no second request.
 */
export function ResultDownloads({ result, name }: { result: unknown; name: string }) {
  const counts = countsOf(result);
  const json = useBlobUrl(result === undefined || result === null ? undefined : `${JSON.stringify(result, null, 2)}\n`, 'application/json');
  const csv = useBlobUrl(counts === undefined ? undefined : countsCsv(counts), 'text/csv');
  if (json === undefined) return null;
  return (
    <p class="row downloads">
      <a href={json} download={`${name}.json`}>
        Download result (JSON)
      </a>
      {csv !== undefined && (
        <a href={csv} download={`${name}-counts.csv`}>
          Download counts (CSV)
        </a>
      )}
    </p>
  );
}
