import { Controller, Get, Patch, Req } from '@nestjs/common';
import { Authenticated } from '../../core/auth/decorators';
import { deepMerge } from '../../core/collections';
import { NkRequest, parseBody } from '../../core/http/request';
import { BadRequestError, NotAuthenticatedError } from '../../core/resource/errors';
import { MAX_STORED_JSON_DEPTH, nestedDeeperThan, STORED_DEPTH_MESSAGE } from '../../core/resource/json-limits';
import { unscoped } from '../../core/resource/query/rows';
import { parseJsonObject } from '../../core/resource/serialize/values';
import { Db, Executor } from '../../database/db';
import { ident, raw, sql } from '../../database/sql';
import { userResource } from './resources/user.resource';

type Config = Record<string, unknown>;

/** The Python type name a JSON value parses to, as DRF's message names it. */
const pythonType = (v: unknown) => (Array.isArray(v) ? 'list' : typeof v === 'string' ? 'str' : typeof v === 'boolean' ? 'bool' : Number.isInteger(v) ? 'int' : 'float');
const isObject = (v: unknown): v is Config => v !== null && typeof v === 'object' && !Array.isArray(v);


/**
 * `/api/users/config/`: the requester's own preferences (the user's `config_data`), which any
 * authenticated user may read and change, and nobody else's. PATCH merges the body into them.
 * The user's own row is read unscoped: it is the requester's, whatever they may view of users.
 */
@Controller('api/users/config')
export class UserConfigController {
  constructor(private readonly db: Db) {}

  private userId(req: NkRequest): string {
    const user = req.principal?.user;
    if (!user) throw new NotAuthenticatedError();
    return user.id;
  }

  private async read(exec: Executor, id: string, lock = false): Promise<Config> {
    const [row] = await exec.query<{ config_data: unknown }>(
      sql`SELECT ${ident('config_data')} FROM ${unscoped(userResource).table} WHERE ${ident('id')} = ${id}${lock ? raw(exec.dialect.forUpdate) : sql``}`,
    );
    return parseJsonObject(row?.config_data);
  }

  @Get()
  @Authenticated()
  get(@Req() req: NkRequest): Promise<Config> {
    return this.read(this.db, this.userId(req));
  }

  @Patch()
  @Authenticated()
  async patch(@Req() req: NkRequest): Promise<Config> {
    const id = this.userId(req);
    const body = parseBody(req, false) ?? {};
    if (!isObject(body)) throw new BadRequestError(`Expected a dictionary of items but got type "${pythonType(body)}".`);
    return this.db.transaction(async (tx) => {
      const merged = deepMerge(await this.read(tx, id, true), body);
      if (nestedDeeperThan(merged, MAX_STORED_JSON_DEPTH)) throw new BadRequestError(STORED_DEPTH_MESSAGE);
      await tx.execute(sql`UPDATE ${unscoped(userResource).table} SET ${ident('config_data')} = ${tx.dialect.toDb(merged, 'json')} WHERE ${ident('id')} = ${id}`);
      return merged;
    });
  }
}
