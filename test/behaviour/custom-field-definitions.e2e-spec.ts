import { randomUUID } from 'node:crypto';
import { eachDatabase } from '../../src/core/testing/harness';
import type { Executor } from '../../src/database/db';
import { ident, join, sql } from '../../src/database/sql';
import { eventually, outside } from '../support/outside';

/**
 * Custom field definitions are kept between requests (the harness keeps them for an hour:
 * DEFINITION_CACHE_SECONDS=3600), and dropped whenever they may have changed: by this process's
 * statements, before they run and again once their transaction ended; by another process's, when
 * PostgreSQL notifies it.
 */
const CF_COLUMNS = ['id', 'created', 'last_updated', 'label', 'key', 'type', 'grouping', 'description', 'required', 'filter_logic', 'default', 'weight', 'validation_minimum', 'validation_maximum', 'validation_regex', 'advanced_ui'];

/** A text custom field on tenants, written as plain rows (no API, so no hook of the resource runs). */
async function insertField(exec: Executor, key: string): Promise<string> {
  const id = randomUUID();
  const now = new Date();
  await exec.execute(
    sql`INSERT INTO ${ident('extras_customfield')} (${join(CF_COLUMNS.map((c) => ident(c)))})
        VALUES (${id}, ${now}, ${now}, ${key}, ${key}, ${'text'}, ${''}, ${''}, ${false}, ${'loose'}, ${null}, ${100}, ${null}, ${null}, ${''}, ${false})`,
  );
  await exec.execute(sql`INSERT INTO ${ident('extras_customfield_content_types')} (${ident('customfield_id')}, ${ident('content_type')}) VALUES (${id}, ${'tenancy.tenant'})`);
  return id;
}

eachDatabase('custom field definitions', (t) => {
  let tenantUrl: string;
  const fieldsOfTenant = async () => Object.keys((await t().get(tenantUrl).expect(200)).body.custom_fields).sort();

  beforeAll(async () => {
    tenantUrl = `/api/tenancy/tenants/${(await t().post('/api/tenancy/tenants/', { name: 'Definitions' }).expect(201)).body.id}/`;
  });

  it('applies fields added and removed through the API on the next request', async () => {
    const cf = (await t().post('/api/extras/custom-fields/', { label: 'Via API', key: 'via_api', type: 'select', content_types: ['tenancy.tenant'] }).expect(201)).body;
    expect(await fieldsOfTenant()).toEqual(['via_api']);
    await t().patch(tenantUrl, { custom_fields: { via_api: 'x' } }).expect(400);
    await t().post('/api/extras/custom-field-choices/', { custom_field: cf.id, value: 'x' }).expect(201);
    expect((await t().patch(tenantUrl, { custom_fields: { via_api: 'x' } }).expect(200)).body.custom_fields).toEqual({ via_api: 'x' });
    await t().patch(tenantUrl, { custom_fields: { via_api: null } }).expect(200);
    await t().del(`/api/extras/custom-fields/${cf.id}/`).expect(204);
    expect(await fieldsOfTenant()).toEqual([]);
  });

  it('applies a field committed while a request read the definitions, on the next request', async () => {
    // PGlite runs one transaction at a time: a request cannot read while this one is open.
    if (t().kind === 'pglite') return;
    expect(await fieldsOfTenant()).toEqual([]);
    await t().db.transaction(async (tx) => {
      await insertField(tx, 'raced');
      // This request reads (and keeps) the definitions committed so far: without the field.
      expect(await fieldsOfTenant()).toEqual([]);
    });
    expect(await fieldsOfTenant()).toEqual(['raced']);
    await t().db.execute(sql`DELETE FROM ${ident('extras_customfield')} WHERE ${ident('key')} = ${'raced'}`);
    expect(await fieldsOfTenant()).toEqual([]);
  });

  it('applies a field another process adds or removes once PostgreSQL notifies it', async () => {
    if (t().kind !== 'postgres') return;
    const is = (keys: string[]) => async () => JSON.stringify(await fieldsOfTenant()) === JSON.stringify(keys);
    expect(await fieldsOfTenant()).toEqual([]);
    const id = randomUUID();
    await outside(
      t(),
      `WITH f AS (INSERT INTO "extras_customfield" (${CF_COLUMNS.map((c) => `"${c}"`).join(', ')})
         VALUES ($1, now(), now(), 'elsewhere', 'elsewhere', 'text', '', '', false, 'loose', NULL, 100, NULL, NULL, '', false) RETURNING "id")
       INSERT INTO "extras_customfield_content_types" ("customfield_id", "content_type") SELECT "id", 'tenancy.tenant' FROM f`,
      [id],
    );
    expect(await eventually(is(['elsewhere']))).toBe(true);
    await outside(t(), `DELETE FROM "extras_customfield" WHERE "id" = $1`, [id]);
    expect(await eventually(is([]))).toBe(true);
  });
});
