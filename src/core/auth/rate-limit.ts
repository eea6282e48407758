import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { parseRate, Rate } from '../../config/rate';
import type { Settings } from '../../config/settings';
import { CLOCK, Clock, SETTINGS } from '../../config/settings.module';
import { Db } from '../../database/db';
import { ident, sql } from '../../database/sql';
import type { Principal } from '../context';
import { TooManyRequestsError } from '../resource/errors';
import { AUTH_THROTTLE_TABLE, counterBucket, CounterRow, counterStatements, staleCounters } from './throttle.table';

/** A slice is at most a tenth of the limit: what an instance may hold unused, so what the others may be refused early. */
const SLICES = 10;
/** Keys this instance keeps allowances for in a window; past it they are forgotten (their unused slices lost: fewer requests admitted, never more). */
const MAX_KEYS = 100_000;
/** How often an instance deletes the counter rows no one reads any more (on a claim). */
const PURGE_EVERY_MS = 3_600_000;

/** One key's share of the current window on this instance. */
interface Allowance {
  /** Requests claimed from the database and not used yet: admitted without a statement. */
  left: number;
  /** The window's count in the database (what every instance claimed) at this instance's last claim, at most the limit. */
  known: number;
  /** The claim in flight, which the key's other requests wait for. */
  claiming?: Promise<void>;
}

/**
 * RATE_LIMIT: requests per user (all of their tokens and sessions) or, unauthenticated, per
 * address, in fixed windows aligned to the clock (an hour's window starts on the hour), shared by
 * every instance on the database. An instance claims slices of a key's window from the shared
 * counter (`netkeel_auth_throttle`): the count is raised by the slice and read back, and the part
 * of it that falls within the limit is granted. It then admits that many requests without a
 * statement, and claims again when they are used. So no more than the limit is ever admitted
 * across instances; an instance may hold a slice it does not use up (at most a tenth of the
 * limit, and half of what it last saw remaining), which the other instances cannot give out.
 * See docs/architecture.md, "Rate limits".
 */
@Injectable()
export class RateLimiter {
  private readonly rate: Rate | null;
  private readonly exemptSuperusers: boolean;
  private readonly logger = new Logger('RateLimiter');
  /** The start (ms) of the window the allowances are of; a new window starts them afresh. */
  private window = NaN;
  private allowances = new Map<string, Allowance>();
  private purgedAt = -Infinity;

  constructor(
    private readonly db: Db,
    @Inject(SETTINGS) settings: Settings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.rate = parseRate(settings.RATE_LIMIT);
    this.exemptSuperusers = settings.RATE_LIMIT_EXEMPT_SUPERUSERS;
  }

  /**
   * Counts a request of `principal` (of `address` when anonymous) and sets the X-RateLimit-*
   * headers; throws 429 past the limit. A promise only when it must claim from the database.
   */
  take(principal: Principal, address: string, res: Response): void | Promise<void> {
    const rate = this.rate;
    if (!rate || (this.exemptSuperusers && principal.user?.is_superuser)) return;
    const key = principal.user ? `user\0${principal.user.id}` : `address\0${address}`;
    const now = this.clock().getTime();
    const start = now - (now % rate.periodMs);
    if (start !== this.window) {
      this.window = start;
      this.allowances = new Map();
    }
    let a = this.allowances.get(key);
    if (!a) {
      if (this.allowances.size >= MAX_KEYS) this.allowances.clear();
      this.allowances.set(key, (a = { left: 0, known: 0 }));
    }
    if (a.left > 0) return this.admit(a, rate, start, res);
    return this.claimThenAdmit(key, a, rate, start, now, res);
  }

  private async claimThenAdmit(key: string, a: Allowance, rate: Rate, start: number, now: number, res: Response): Promise<void> {
    while (a.left === 0) {
      if (a.known >= rate.limit) {
        this.headers(res, rate, start, 0);
        throw new TooManyRequestsError(Math.max(1, Math.ceil((start + rate.periodMs - now) / 1000)));
      }
      await (a.claiming ??= this.claim(key, a, rate, start).finally(() => (a.claiming = undefined)));
    }
    this.admit(a, rate, start, res);
  }

  private admit(a: Allowance, rate: Rate, start: number, res: Response): void {
    a.left--;
    this.headers(res, rate, start, rate.limit - a.known + a.left);
  }

  /** The limit, what remains of it as this instance knows, and when the window ends (Unix time, seconds). */
  private headers(res: Response, rate: Rate, start: number, remaining: number): void {
    res.setHeader('X-RateLimit-Limit', String(rate.limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, remaining)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil((start + rate.periodMs) / 1000)));
  }

  /**
   * Raises the key's count by a slice and reads it back: the part of the slice within the limit
   * is this instance's. Not one atomic step: another instance's claim read in between makes the
   * part look smaller (fewer admitted, never more). Two statements; four the first time a key is
   * seen, when its row is made.
   */
  private async claim(key: string, a: Allowance, rate: Rate, start: number): Promise<void> {
    const n = Math.max(1, Math.min(Math.ceil(rate.limit / SLICES), Math.ceil((rate.limit - a.known) / 2)));
    const id = counterBucket('rate', key);
    const d = this.db.dialect;
    const begins = new Date(start);
    const add = counterStatements.add(d, [id], n, { restartBefore: begins, start: begins });
    await this.purge();
    if ((await this.db.execute(add)) === 0) {
      await this.db.execute(counterStatements.ensure(d, [id], begins));
      await this.db.execute(add);
    }
    const [row] = await this.db.query<CounterRow>(counterStatements.read([id]));
    if (!row) return; // removed meanwhile: nothing is known to be granted; the next turn claims again
    const total = Number(row.attempts);
    const granted = Math.max(0, Math.min(n, rate.limit - (total - n)));
    a.left += granted;
    a.known = granted < n ? rate.limit : Math.min(rate.limit, total);
  }

  /** Deletes stale counter rows, at most once an hour per instance; a failure (a deadlock with a login's count) is left for the next time. */
  private async purge(): Promise<void> {
    const now = this.clock();
    if (now.getTime() - this.purgedAt < PURGE_EVERY_MS) return;
    this.purgedAt = now.getTime();
    await this.db
      .execute(sql`DELETE FROM ${ident(AUTH_THROTTLE_TABLE.name)} WHERE ${staleCounters(now)}`)
      .catch((e: unknown) => this.logger.warn(`Stale rate limit counters not deleted: ${(e as Error).message}`));
  }
}
