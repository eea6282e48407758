import type { ExecutionType } from './choices';

const HOUR = 3_600_000;
const STEP: Partial<Record<ExecutionType, number>> = { hourly: HOUR, daily: 24 * HOUR, weekly: 7 * 24 * HOUR };

/** One field of a crontab: the values it allows within [lo, hi]. */
function cronField(text: string, lo: number, hi: number): Set<number> | null {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(part);
    if (!m) return null;
    const step = m[2] ? Number(m[2]) : 1;
    let [a, b] = m[1] === '*' ? [lo, hi] : m[1].split('-').map(Number);
    if (b === undefined) b = m[2] ? hi : a;
    if (a < lo || b > hi || a > b || step < 1) return null;
    for (let v = a; v <= b; v += step) out.add(v);
  }
  return out;
}

/** A five-field crontab (minute hour day-of-month month day-of-week), or null when it does not parse. */
export function parseCrontab(text: string): Set<number>[] | null {
  const parts = String(text).trim().split(/\s+/);
  if (parts.length !== 5) return null;
  const bounds: [number, number][] = [[0, 59], [0, 23], [1, 31], [1, 12], [0, 6]];
  const fields = parts.map((p, i) => cronField(p, ...bounds[i]));
  return fields.every(Boolean) ? (fields as Set<number>[]) : null;
}

/** The first minute after `after` (UTC) that a crontab allows, within a year; null if none. */
export function nextCron(cron: Set<number>[], after: Date): Date | null {
  const t = new Date(after.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  const limit = after.getTime() + 366 * 24 * HOUR;
  while (t.getTime() <= limit) {
    if (!cron[3].has(t.getUTCMonth() + 1) || !cron[2].has(t.getUTCDate()) || !cron[4].has(t.getUTCDay())) {
      t.setUTCHours(0, 0, 0, 0);
      t.setUTCDate(t.getUTCDate() + 1);
      continue;
    }
    if (!cron[1].has(t.getUTCHours())) {
      t.setUTCMinutes(0);
      t.setUTCHours(t.getUTCHours() + 1);
      continue;
    }
    if (cron[0].has(t.getUTCMinutes())) return t;
    t.setUTCMinutes(t.getUTCMinutes() + 1);
  }
  return null;
}

/**
 * When a recurring schedule runs next after a run due at `due`: the next step that is later than
 * `now` (runs missed while nothing was running are not made up), or the crontab's next minute;
 * null for a one-off.
 */
export function nextRun(interval: ExecutionType, crontab: string, due: Date, now: Date): Date | null {
  const step = STEP[interval];
  if (step) {
    const behind = Math.max(1, Math.floor((now.getTime() - due.getTime()) / step) + 1);
    return new Date(due.getTime() + behind * step);
  }
  if (interval === 'custom') {
    const cron = parseCrontab(crontab);
    return cron ? nextCron(cron, now) : null;
  }
  return null;
}
