import { parse } from 'csv-parse/sync';
import { eachDatabase, startApp, TestApp } from '../../src/core/testing/harness';

const NUL = { detail: 'Null characters are not allowed.' };
const nested = (depth: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = { d: v };
  return v;
};

/**
 * What a hostile client can send or make others receive over HTTP (security issue): response
 * headers, NUL characters, JSON nested deep, spreadsheet formulas in CSV exports, and regular
 * expressions built to make a matching engine backtrack.
 */
eachDatabase('hostile HTTP input', (t) => {
  const count = async (path: string) => (await t().get(`${path}${path.includes('?') ? '&' : '?'}limit=1`).expect(200)).body.count as number;

  beforeAll(async () => {
    await t().post('/api/extras/custom-fields/', { content_types: ['tenancy.tenant'], label: 'Blob', key: 'blob', type: 'json' }).expect(201);
  });

  it('marks every answer as not to be sniffed, framed or cached, and confines the docs page', async () => {
    for (const res of [await t().get('/api/tenancy/tenants/').expect(200), await t().post('/api/users/tokens/', {}).expect(201), await t().get('/api/nothing-here/')]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const docs = await t().http.get('/api/docs/').expect(200);
    expect(docs.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(docs.headers['content-security-policy']).toMatch(/script-src 'self';/);
    expect(docs.headers['x-frame-options']).toBe('DENY');
    // The page's scripts are files of this origin (the policy allows no inline script).
    expect(docs.text).not.toMatch(/<script>(?!<\/script>)/);
  });

  it('refuses NUL characters in paths, queries, JSON and CSV with one clear message', async () => {
    const before = await count('/api/tenancy/tenants/');
    expect((await t().get('/api/tenancy/tenants/?name=a%00b').expect(400)).body).toEqual(NUL);
    expect((await t().get('/api/tenancy/tenants/a%00b/').expect(400)).body).toEqual(NUL);
    const json = await t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send('{"name": "a\\u0000b"}').expect(400);
    expect(json.body).toEqual(NUL);
    const csv = await t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send('name\na\u0000b\n').expect(400);
    expect(csv.body).toEqual(NUL);
    expect(await count('/api/tenancy/tenants/')).toBe(before);
    // An escaped backslash followed by "u0000" is text, not a NUL.
    const literal = await t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send('{"name": "a\\\\u0000b"}').expect(201);
    expect(literal.body.name).toBe('a\\u0000b');
  });

  it('refuses JSON nested 10,000 deep, and stores and shows JSON of ordinary depth', async () => {
    const before = await count('/api/tenancy/tenants/');
    // Written by hand: the client's own JSON.stringify cannot go 10,000 deep.
    const text = `{"name": "deep", "custom_fields": {"blob": ${'{"d": '.repeat(10_000)}1${'}'.repeat(10_000)}}}`;
    const deep = await t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'application/json').send(text).expect(400);
    expect(deep.body).toEqual({ detail: 'JSON nested deeper than 100 levels is not accepted.' });
    const cell = `${'{""d"": '.repeat(5_000)}1${'}'.repeat(5_000)}`;
    const csv = await t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(`name,cf_blob\ndeep,"${cell}"\n`);
    expect(csv.status).toBe(400);
    expect(await count('/api/tenancy/tenants/')).toBe(before);
    // 30 levels is what every database stores (MariaDB's JSON stops at 32, the custom fields' object included).
    const tooDeep = await t().post('/api/tenancy/tenants/', { name: 'nested-31', custom_fields: { blob: nested(31) } }).expect(400);
    expect(tooDeep.body).toEqual({ non_field_errors: ["Invalid value for custom field 'blob': JSON nested deeper than 30 levels cannot be stored."] });
    expect(await count('/api/tenancy/tenants/')).toBe(before);
    const ok = await t().post('/api/tenancy/tenants/', { name: 'nested-30', custom_fields: { blob: nested(30) } }).expect(201);
    expect((await t().get(`/api/tenancy/tenants/${ok.body.id}/`).expect(200)).body.custom_fields.blob).toEqual(nested(30));
    const page = await t().get(`/api/tenancy/tenants/${ok.body.id}/`).set('Accept', 'text/html').expect(200);
    expect(page.text).toContain('bottom');
    await t().get('/api/tenancy/tenants/').set('Accept', 'text/html').expect(200);
  });

  it('neutralises spreadsheet formulas in CSV exports, and an import of the export gives the values back exactly', async () => {
    const values = ['=HYPERLINK("http://evil.example","x")', '+1+cmd', '-2+3', '@SUM(A1)', "'quoted", "''twice", 'plain'];
    const ids: string[] = [];
    for (const [i, v] of values.entries()) ids.push((await t().post('/api/tenancy/tenants/', { name: `formula-${i}`, description: v }).expect(201)).body.id);
    const exported = await t().get(`/api/tenancy/tenants/?name__isw=formula-&sort=name&format=csv`).expect(200);
    const rows = parse(exported.text, { columns: true }) as Record<string, string>[];
    const cells = rows.map((r) => r.description);
    expect(cells).toEqual(['\'=HYPERLINK("http://evil.example","x")', "'+1+cmd", "'-2+3", "'@SUM(A1)", "''quoted", "'''twice", 'plain']);
    for (const id of ids) await t().del(`/api/tenancy/tenants/${id}/`).expect(204);
    await t().http.post('/api/tenancy/tenants/').set('Authorization', `Token ${t().token}`).set('Content-Type', 'text/csv').send(exported.text).expect(201);
    const back = (await t().get('/api/tenancy/tenants/?name__isw=formula-&sort=name').expect(200)).body.results;
    expect(back.map((r: { description: string }) => r.description)).toEqual(values);
  });

  it('keeps regular expressions built to backtrack to bounded work', async () => {
    await t().post('/api/tenancy/tenants/', { name: 'regex-victim', description: `${'a'.repeat(190)}c` }).expect(201);
    // Exponential for a backtracking engine on 190 characters; linear for the database's.
    for (const [pattern, n] of [
      ['(a|a)*b', 0],
      ['(a|aa)*c$', 1],
      ['(a|a|a)+(a|a)+c', 1],
      ['a*a*a*a*a*a*a*a*a*a*a*a*b', 0],
      ['.*a.*a.*a.*a.*a.*a.*a.*a.*a.*a.*a.*a.*b', 0],
    ] as [string, number][]) {
      expect([pattern, await count(`/api/tenancy/tenants/?description__re=${encodeURIComponent(pattern)}`)]).toEqual([pattern, n]);
    }
    // Nested quantifiers and back-references are refused before any database sees them.
    for (const pattern of ['(a+)+b', '(a*)*b', '(a)\\1']) {
      const res = await t().get(`/api/tenancy/tenants/?description__re=${encodeURIComponent(pattern)}`).expect(400);
      expect(JSON.stringify(res.body)).toMatch(/too costly/);
    }
  });
});

/** The Host header is reflected into every URL of a response: only names the service answers to. */
describe('ALLOWED_HOSTS', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('pglite', { env: { ALLOWED_HOSTS: 'netkeel.example.com,.lab.example' } });
  });
  afterAll(() => t.close());

  it('refuses a host it was not told of, and builds URLs from the ones it was', async () => {
    const evil = await t.get('/api/tenancy/tenants/?limit=1').set('Host', 'evil.example').expect(400);
    expect(evil.body).toEqual({ detail: 'Invalid HTTP_HOST header: "evil.example". You may need to add it to ALLOWED_HOSTS.' });
    expect(JSON.stringify(evil.body)).not.toContain('http://evil.example');
    await t.post('/api/tenancy/tenants/', { name: 'one' }).set('Host', 'netkeel.example.com').expect(201);
    await t.post('/api/tenancy/tenants/', { name: 'two' }).set('Host', 'netkeel.example.com').expect(201);
    const list = await t.get('/api/tenancy/tenants/?limit=1').set('Host', 'a.lab.example:8443').expect(200);
    expect(list.body.next).toMatch(/^http:\/\/a\.lab\.example:8443\/api\/tenancy\/tenants\/\?/);
    await t.get('/api/tenancy/tenants/').set('Host', 'netkeel.example.com.evil.example').expect(400);
  });
});
