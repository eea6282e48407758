import { Injectable } from '@nestjs/common';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { TooManyRequestsError } from '../resource/errors';

/**
 * Slows password guessing: after repeated failures for one username, or from one client
 * address, further attempts are refused with 429 and Retry-After until the window passes.
 * A success clears the username's count.
 */
@Injectable()
export class LoginThrottle {
  private readonly perUser = new RateLimiterMemory({ keyPrefix: 'user', points: 5, duration: 15 * 60, blockDuration: 15 * 60 });
  private readonly perAddress = new RateLimiterMemory({ keyPrefix: 'addr', points: 20, duration: 15 * 60, blockDuration: 15 * 60 });

  /** Throws 429 when either key is blocked. */
  async check(username: string, address: string): Promise<void> {
    const [u, a] = await Promise.all([this.perUser.get(username.toLowerCase()), this.perAddress.get(address)]);
    const blocked = [u && u.consumedPoints >= 5 ? u.msBeforeNext : 0, a && a.consumedPoints >= 20 ? a.msBeforeNext : 0];
    const wait = Math.max(...blocked);
    if (wait > 0) throw new TooManyRequestsError(Math.ceil(wait / 1000));
  }

  async failure(username: string, address: string): Promise<void> {
    await Promise.all([
      this.perUser.penalty(username.toLowerCase(), 1),
      this.perAddress.penalty(address, 1),
    ]);
  }

  async success(username: string, _address: string): Promise<void> {
    await this.perUser.delete(username.toLowerCase());
  }
}
