import { NotFoundException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ConflictError, NotAuthenticatedError, TooManyRequestsError, ValidationError } from '../resource/errors';
import { ApiExceptionFilter } from './exception.filter';

describe('ApiExceptionFilter', () => {
  const map = (e: unknown) => new ApiExceptionFilter().map(e);

  it('answers an unexpected failure with a JSON 500 carrying error and exception', () => {
    class WeirdError extends Error {}
    const r = map(new WeirdError('boom'));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: 'boom', exception: 'WeirdError', netkeel_version: expect.any(String) });
    // No runtime version for an attacker to match exploits against.
    expect(JSON.stringify(r.body)).not.toContain(process.version);
  });

  it('maps domain errors to the reference shapes', () => {
    expect(map(new ValidationError({ name: ['x'] }))).toMatchObject({ status: 400, body: { name: ['x'] } });
    expect(map(new NotAuthenticatedError())).toMatchObject({ status: 403, body: { detail: 'Authentication credentials were not provided.' } });
    expect(map(new ConflictError('held'))).toMatchObject({ status: 409, body: { detail: 'held' } });
    expect(map(new TooManyRequestsError(30))).toMatchObject({ status: 429, headers: { 'Retry-After': '30' } });
    expect(map(new NotFoundException())).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });

  it('turns database constraint races into 4xx answers, never 500', () => {
    const err = (code: string, errno?: number) => new QueryFailedError('q', [], Object.assign(new Error('db'), { code, errno }));
    expect(map(err('23505')).status).toBe(400);
    expect(map(err('ER_DUP_ENTRY', 1062)).status).toBe(400);
    expect(map(err('23503')).status).toBe(409);
    expect(map(err('40P01')).status).toBe(409);
    expect(map(err('2201B')).status).toBe(400);
  });
});
