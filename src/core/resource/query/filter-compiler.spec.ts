import { mysqlDialect, postgresDialect } from '../../../database/dialect';
import { ident, inList } from '../../../database/sql';
import type { Executor } from '../../../database/db';
import { RequestContext } from '../../context';
import { defineResource } from '../definition';
import { field } from '../fields';
import { ResourceRegistry } from '../registry';
import { FilterCompiler } from './filter-compiler';
import { ValueError } from './values';
import { unscoped } from './rows';

const thing = defineResource({
  app: 'test',
  model: 'thing',
  slug: 'things',
  table: 'test_thing',
  naturalKey: ['name'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, maxLength: 100 }),
    size: field.integer({ nullable: true }),
    enabled: field.boolean(),
    kind: field.choice([['a', 'A'], ['b', 'B']] as const),
    when: field.date({ nullable: true }),
  },
  features: [],
});

function compilerFor(dialect: typeof postgresDialect) {
  const exec = { dialect, query: async () => [], execute: async () => 0, transaction: async (fn: never) => fn, inTransaction: false } as unknown as Executor;
  const ctx = new RequestContext(
    exec as never,
    { STRICT_FILTERING: true } as never,
    new ResourceRegistry([thing]),
    { constraints: async () => null },
    { user: null, via: null, writeEnabled: false },
    '2.4',
    'http://x',
  );
  return new FilterCompiler(ctx, exec, async (def, alias) => unscoped(def, alias));
}

const INJECTION = "x' OR 1=1 --";

describe.each([
  ['postgres', postgresDialect],
  ['mysql', mysqlDialect],
])('filter compiler on %s', (_name, dialect) => {
  // Bound values, with a list bound as one array (PostgreSQL's `= ANY($1)`) spread out.
  const compile = async (key: string, ...values: string[]) => {
    const { text, params } = dialect.render(await compilerFor(dialect).fromQuery(thing, new Map([[key, values]]), 't'));
    return { text, params: params.flat() };
  };

  it.each(['', '__n', '__ic', '__nic', '__isw', '__nisw', '__iew', '__niew', '__ie', '__nie'])('binds string lookup name%s as a parameter', async (lookup) => {
    const { text, params } = await compile(`name${lookup}`, INJECTION);
    expect(text).not.toContain('OR 1=1');
    expect(params.some((p) => String(p).toLowerCase().includes('or 1=1'))).toBe(true);
    if (lookup.startsWith('__n')) expect(text).toMatch(/^NOT \(COALESCE/);
  });

  it('escapes LIKE wildcards in contains lookups', async () => {
    const { params } = await compile('name__ic', '50%_off');
    expect(params).toContain('%50\\%\\_off%');
  });

  it.each(['__lt', '__lte', '__gt', '__gte', '__n', ''])('compiles number lookup size%s and refuses non-numbers', async (lookup) => {
    const { params } = await compile(`size${lookup}`, '12');
    expect(params).toContain(12);
    await expect(compile(`size${lookup}`, 'twelve')).rejects.toMatchObject({ errors: { [`size${lookup}`]: ['A valid integer is required.'] } });
  });

  it('ORs repeated values and ANDs different parameters', async () => {
    const { text } = await compile('size__lt', '1', '5');
    expect(text).toMatch(/ OR /);
    const both = dialect.render(await compilerFor(dialect).fromQuery(thing, new Map([['size__gt', ['1']], ['name__ic', ['a']]]), 't'));
    expect(both.text).toMatch(/ AND /);
  });

  it('validates choices, booleans, dates and isnull', async () => {
    await expect(compile('kind', 'z')).rejects.toMatchObject({ errors: { kind: ['Select a valid choice. z is not one of the available choices.'] } });
    expect((await compile('kind', 'a')).params).toContain('a');
    await expect(compile('enabled', 'perhaps')).rejects.toBeTruthy();
    await expect(compile('when', '2024-02-30')).rejects.toBeTruthy();
    expect((await compile('size__isnull', 'true')).text).toMatch(/IS NULL/);
    expect((await compile('size__isnull', 'false')).text).toMatch(/IS NOT NULL/);
  });

  it('refuses unknown filters and lookups, and regular expressions that could run away', async () => {
    await expect(compile('nope', 'x')).rejects.toMatchObject({ errors: { nope: ['Unknown filter field'] } });
    await expect(compile('size__ic', 'x')).rejects.toMatchObject({ errors: { size__ic: ['Unknown filter field'] } });
    await expect(compile('enabled__n', 'true')).rejects.toMatchObject({ errors: { enabled__n: ['Unknown filter field'] } });
    await expect(compile('name__re', '(a+)+$')).rejects.toMatchObject({ errors: { name__re: [expect.stringMatching(/too costly/)] } });
    await expect(compile('name__re', '(')).rejects.toMatchObject({ errors: { name__re: [expect.stringMatching(/Invalid regular expression/)] } });
    await expect(compile('name__re', 'x'.repeat(300))).rejects.toMatchObject({ errors: { name__re: [expect.stringMatching(/too long/)] } });
  });

  it('ignores empty values and filters by id', async () => {
    expect((await compile('name', '')).text).toBe('1=1');
    await expect(compile('id', 'not-a-uuid')).rejects.toMatchObject({ errors: { id: ['"not-a-uuid" is not a valid UUID.'] } });
    expect((await compile('id', '6F3C2E1A-0000-4000-8000-000000000001')).params).toContain('6f3c2e1a-0000-4000-8000-000000000001');
  });

  it('reads Django lookups in permission constraints', async () => {
    const c = compilerFor(dialect);
    const { text, params } = dialect.render(await c.fromConstraint(thing, { name__istartswith: 'ams', size__in: [1, 2], pk: '6f3c2e1a-0000-4000-8000-000000000001' }, 't'));
    expect(text).toMatch(/LIKE/);
    expect(params.flat()).toEqual(expect.arrayContaining(['ams%', 1, 2]));
    await expect(c.fromConstraint(thing, { nope: 1 }, 't')).rejects.toBeInstanceOf(ValueError);
  });
});

describe('lists of values', () => {
  const list = inList(ident('t', 'id'), ['a', 'b', 'c']);
  it('bind as one array on PostgreSQL and as IN (...) on MySQL', () => {
    expect(postgresDialect.render(list)).toEqual({ text: '"t"."id" = ANY($1)', params: [['a', 'b', 'c']] });
    expect(mysqlDialect.render(list)).toEqual({ text: '`t`.`id` IN (?, ?, ?)', params: ['a', 'b', 'c'] });
  });
  it('of other values (buffers, expressions) stay IN (...) everywhere', () => {
    const bytes = inList(ident('host'), [Buffer.from([10, 0, 0, 1])]);
    expect(postgresDialect.render(bytes).text).toBe('"host" IN ($1)');
    expect(postgresDialect.render(inList(ident('x'), []))).toEqual({ text: '1=0', params: [] });
  });
});
