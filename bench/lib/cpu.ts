/**
 * CPU time of this process and of the PostgreSQL server on this machine, for figures of CPU
 * per request: they move far less with outside load than requests per second do.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSample {
  /** Seconds of CPU used by this process (user + system). */
  readonly node: number;
  /** Seconds used by every `postgres` process, with the children they reaped; null if /proc does not show them. */
  readonly postgres: number | null;
}

const TICKS_PER_SECOND = 100;

/** utime + stime (+ cutime + cstime: exited backends are counted in the postmaster) of one /proc/<pid>/stat, in ticks. */
function ticksOf(stat: string): { comm: string; ticks: number } | null {
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  // Fields after "(comm)": state is field 3, utime 14, stime 15, cutime 16, cstime 17.
  const f = stat.slice(close + 2).split(' ');
  const n = (i: number) => Number(f[i - 3] ?? 0);
  return Number.isFinite(n(14)) ? { comm, ticks: n(14) + n(15) + n(16) + n(17) } : null;
}

function postgresSeconds(): number | null {
  let ticks = 0;
  let seen = false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const t = ticksOf(stat);
    if (t?.comm === 'postgres') {
      ticks += t.ticks;
      seen = true;
    }
  }
  return seen ? ticks / TICKS_PER_SECOND : null;
}

export function cpuSample(withPostgres: boolean): CpuSample {
  const u = process.cpuUsage();
  return { node: (u.user + u.system) / 1e6, postgres: withPostgres ? postgresSeconds() : null };
}
