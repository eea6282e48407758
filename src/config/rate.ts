/** A rate as RATE_LIMIT writes it, DRF's form: `<count>/<period>` (`1000/hour`); the count at least 1. */
export const RATE_FORM = /^(|[1-9]\d{0,8}\/(s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?))$/;

const PERIOD_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export interface Rate {
  limit: number;
  periodMs: number;
}

/** The rate a RATE_LIMIT text names (one that RATE_FORM accepts), null when empty. */
export function parseRate(text: string): Rate | null {
  if (!text) return null;
  const [count, period] = text.split('/');
  return { limit: Number(count), periodMs: PERIOD_SECONDS[period[0]] * 1000 };
}
