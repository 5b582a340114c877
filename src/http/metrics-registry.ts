const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A small Prometheus registry: request counts and a latency histogram per route, plus gauges the
 * services register. Free of Fastify so the composition root can own one without importing the app's types.
 */
export class MetricsRegistry {
  private readonly counts = new Map<string, number>();
  private readonly hist = new Map<string, { buckets: number[]; sum: number; count: number }>();
  private readonly gauges = new Map<string, () => number>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `method="${method}",route="${route}",status="${status}"`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    const hkey = `method="${method}",route="${route}"`;
    let h = this.hist.get(hkey);
    if (h === undefined) {
      h = { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.hist.set(hkey, h);
    }
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= (BUCKETS[i] ?? Infinity)) h.buckets[i] = (h.buckets[i] ?? 0) + 1;
    h.sum += seconds;
    h.count += 1;
  }

  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
  }

  render(): string {
    const lines: string[] = ['# HELP qrail_http_requests_total HTTP requests by method, route and status.', '# TYPE qrail_http_requests_total counter'];
    for (const [k, v] of this.counts) lines.push(`qrail_http_requests_total{${k}} ${v}`);
    lines.push('# HELP qrail_http_request_duration_seconds Request latency.', '# TYPE qrail_http_request_duration_seconds histogram');
    for (const [k, h] of this.hist) {
      BUCKETS.forEach((b, i) => lines.push(`qrail_http_request_duration_seconds_bucket{${k},le="${b}"} ${h.buckets[i] ?? 0}`));
      lines.push(`qrail_http_request_duration_seconds_bucket{${k},le="+Inf"} ${h.count}`);
      lines.push(`qrail_http_request_duration_seconds_sum{${k}} ${h.sum}`);
      lines.push(`qrail_http_request_duration_seconds_count{${k}} ${h.count}`);
    }
    for (const [name, read] of this.gauges) {
      lines.push(`# TYPE ${name} gauge`, `${name} ${read()}`);
    }
    return lines.join('\n') + '\n';
  }
}
