import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, Clock } from '../../config/settings.module';
import { Db } from '../../database/db';
import { ident, inList, sql } from '../../database/sql';
import { TooManyRequestsError } from '../resource/errors';
import { AUTH_THROTTLE_TABLE, counterBucket as bucket, CounterRow, counterStatements, staleCounters } from './throttle.table';

interface Bucket {
  id: string;
  limit: number;
}

const PASSWORD_WINDOW_MS = 15 * 60_000;
/** Guesses at one user's password from one address. */
const PER_USER_AND_ADDRESS = 5;
/** Guesses from one address, at any users. */
const PER_ADDRESS = 20;
/** Guesses at one user from anywhere: locks the account, so far above what one address may try. */
const PER_USER = 100;
const TOKEN_WINDOW_MS = 60_000;
/** Unknown token keys presented from one address. */
const TOKEN_FAILURES_PER_ADDRESS = 60;

class RowGone extends Error {}

/** A password attempt that has been counted: a correct password gives the count back. */
export interface PasswordAttempt {
  succeeded(): Promise<void>;
}

/**
 * Slows password and token guessing. A password attempt is counted before the password is
 * checked, atomically in the database, so parallel guesses (or guesses spread over instances)
 * cannot outrun the count: at most the limit of them are ever checked. Limits apply per user
 * and address first, per address, and per user only at a much higher count, so a stranger
 * cannot lock an account out with a few guesses. A correct password gives its count back.
 * Unknown token keys are counted per address; once an address passes the limit, this instance
 * refuses its tokens before looking them up until the window ends.
 */
@Injectable()
export class LoginThrottle {
  /** Addresses refused token lookups until the time given (this instance's memory of the shared count). */
  private readonly tokenBlocked = new Map<string, number>();

  constructor(
    private readonly db: Db,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Counts an attempt at `username`'s password; throws 429 when any of its limits is passed. */
  async attempt(username: string, address: string): Promise<PasswordAttempt> {
    const user = username.toLowerCase();
    const pair: Bucket = { id: bucket('password-user-address', user, address), limit: PER_USER_AND_ADDRESS };
    const perAddress: Bucket = { id: bucket('password-address', address), limit: PER_ADDRESS };
    const perUser: Bucket = { id: bucket('password-user', user), limit: PER_USER };
    const all = [pair, perAddress, perUser];
    const wait = await this.count(all, PASSWORD_WINDOW_MS);
    if (wait > 0) {
      // A refused attempt is not a guess: it must not count towards the user's lock.
      await this.giveBack(all);
      throw new TooManyRequestsError(wait);
    }
    return {
      succeeded: async () => {
        await this.db.execute(sql`DELETE FROM ${ident(AUTH_THROTTLE_TABLE.name)} WHERE ${ident('bucket')} = ${pair.id}
          OR ${staleCounters(this.clock())}`);
        await this.giveBack([perAddress, perUser]);
      },
    };
  }

  /** Throws 429 while this address is refused token lookups (no statement). */
  checkTokenAddress(address: string): void {
    const until = this.tokenBlocked.get(address);
    if (until === undefined) return;
    const now = this.clock().getTime();
    if (until > now) throw new TooManyRequestsError(Math.ceil((until - now) / 1000));
    this.tokenBlocked.delete(address);
  }

  /** Counts an unknown token key from this address; throws 429 once past the limit. */
  async tokenFailed(address: string): Promise<void> {
    const wait = await this.count([{ id: bucket('token-address', address), limit: TOKEN_FAILURES_PER_ADDRESS }], TOKEN_WINDOW_MS);
    if (wait <= 0) return;
    if (this.tokenBlocked.size > 10_000) this.tokenBlocked.clear();
    this.tokenBlocked.set(address, this.clock().getTime() + wait * 1000);
    throw new TooManyRequestsError(wait);
  }

  /**
   * Adds one to each bucket (starting a new window where the old one has ended) and returns the
   * seconds to wait when any is now past its limit, else 0. The rows are made to exist first
   * (committed at once, so the lock is not held); then one transaction updates them, holding
   * their write locks, and reads the counts it made: each attempt sees its own place in line.
   * An update that misses a row (removed meanwhile as stale) starts over.
   */
  private async count(buckets: Bucket[], windowMs: number): Promise<number> {
    const now = this.clock();
    const ids = buckets.map((b) => b.id).sort();
    const d = this.db.dialect;
    const increment = counterStatements.add(d, ids, 1, { restartBefore: new Date(now.getTime() - windowMs), start: now });
    let rows: CounterRow[] | null = null;
    for (let attempt = 0; !rows; attempt++) {
      // Rows removed under it again and again (stale-row cleanup racing): nothing was counted,
      // so refuse the attempt (a 429 the client retries), never let it through uncounted.
      if (attempt === 5) throw new TooManyRequestsError(1);
      await this.db.execute(counterStatements.ensure(d, ids, now));
      rows = await this.db
        .retryingTransaction(async (tx) => {
          if ((await tx.execute(increment)) !== ids.length) throw new RowGone();
          return tx.query<CounterRow>(counterStatements.read(ids));
        }, 10)
        .catch((e: unknown) => {
          if (e instanceof RowGone) return null; // rolled back: nothing was counted
          throw e;
        });
    }
    let waitMs = 0;
    for (const r of rows) {
      const limit = buckets.find((b) => b.id === r.bucket)?.limit ?? Infinity;
      if (Number(r.attempts) > limit) waitMs = Math.max(waitMs, new Date(r.window_start).getTime() + windowMs - now.getTime());
    }
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  private async giveBack(buckets: Bucket[]): Promise<void> {
    const t = ident(AUTH_THROTTLE_TABLE.name);
    await this.db.execute(
      sql`UPDATE ${t} SET ${ident('attempts')} = ${ident('attempts')} - 1 WHERE ${inList(ident('bucket'), buckets.map((b) => b.id))} AND ${ident('attempts')} > 0`,
    );
  }
}
