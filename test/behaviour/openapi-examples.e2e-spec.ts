import Ajv, { type ValidateFunction } from 'ajv';
import { listPath, objectType, ResourceDefinition } from '../../src/core/resource/definition';
import { ResourceRegistry } from '../../src/core/resource/registry';
import { eachDatabase, TestApp } from '../../src/core/testing/harness';
import { testDatabases } from '../../src/database/test-servers';
import { FIXTURES } from '../fixtures';

type Obj = Record<string, any>;
type Method = 'post' | 'put' | 'patch' | 'delete';
type Operation = { operationId: string; requestBody?: Obj; responses: Record<string, Obj> };

const WRITES: Method[] = ['post', 'put', 'patch', 'delete'];

/**
 * Every write operation of the OpenAPI document, sent once with an example built from the
 * document, as a client generated from it would: the API must answer 2xx or a 4xx that the
 * operation documents, never a redirect, a 5xx or an undocumented status. Each body is checked
 * against the operation's request schema before it is sent (the document must not reject what
 * the API takes), and each 2xx answer against the documented response, every object closed to
 * undocumented keys.
 *
 * A model's example takes its values from the model's contract fixture (test/fixtures: values
 * its rules accept, prerequisites made by its setup) where the request schema lists them, and
 * makes whatever else the schema requires, a reference being an existing object of the field's
 * model: the models' own operations must all succeed. The special endpoints (notes, an
 * allocation, an intake message, a job run) get an example made from their schema alone, on an
 * object of their model, and may answer a 4xx they document.
 *
 * The database matters (these are writes), but the whole sweep is long: every model's fixture
 * setup, then about ten requests, some 2,500 requests in all. So the databases of the run share
 * the models: each takes every n-th (n databases), the special endpoints of its models and
 * those of no model; a run on one database sweeps them all. Every model is then tried on one
 * database per run, which is enough for the document (one for every database): what differs
 * between databases is the engine's writes, which the contract suites try on each.
 */
eachDatabase('the OpenAPI document, tried operation by operation', (t) => {
  it('accepts an example of every write operation it documents, and answers as documented', async () => {
    const app = t();
    const doc = (await app.http.get('/api/swagger.json').expect(200)).body;
    const sweep = new Sweep(app, doc);
    const kinds = testDatabases();
    const models = sweep.registry.all().filter((_, i) => i % kinds.length === kinds.indexOf(app.kind));
    // The paths tried: a sampled model's (its own and its sub-resources') and those of no model.
    // Log-in and log-out are a browser's forms, outside the API.
    const owner = (path: string) => sweep.registry.all().find((d) => path.startsWith(listPath(d)));
    const inSample = (path: string) => path.startsWith('/api/') && (!owner(path) || models.includes(owner(path)!));

    for (const def of models) await sweep.model(def);
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      if (inSample(path) && !owner(path)) for (const method of WRITES) if (item[method]) await sweep.special(path, method, null);
    }

    const untried = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
      inSample(path) ? WRITES.filter((m) => item[m] && !sweep.tried.has(item[m].operationId)).map((m) => `${m.toUpperCase()} ${path}`) : [],
    );
    expect({ failures: sweep.failures, untried }).toEqual({ failures: [], untried: [] });
  }, 600_000);
});

/** One sweep over a server's document: what was tried, and what went wrong. */
class Sweep {
  readonly registry: ResourceRegistry;
  readonly tried = new Set<string>();
  readonly failures: string[] = [];
  private readonly check: Check;

  constructor(
    private readonly app: TestApp,
    private readonly doc: Obj,
  ) {
    this.registry = app.app.get(ResourceRegistry);
    this.check = validators(doc);
  }

  private op(path: string, method: Method): Operation | undefined {
    return this.doc.paths[path]?.[method];
  }

  private requestSchema(path: string, method: Method): Obj | undefined {
    return this.op(path, method)?.requestBody?.content?.['application/json']?.schema;
  }

  /** Sends one operation's example and checks the answer against the document; returns a 2xx body. */
  async send(path: string, method: Method, url: string, body: unknown, mustSucceed: boolean): Promise<Obj | undefined> {
    const op = this.op(path, method);
    if (!op) {
      this.failures.push(`${method.toUpperCase()} ${path}: not in the document`);
      return undefined;
    }
    this.tried.add(op.operationId);
    const schema = this.requestSchema(path, method);
    if (schema && body !== undefined) {
      const problems = this.check(schema, body);
      if (problems) this.failures.push(`${op.operationId}: the example is not valid for the documented request body: ${problems}`);
    }
    const res = await (method === 'delete' ? this.app.del(url, body) : this.app[method](url, body));
    const status = String(res.status);
    const documented = Object.keys(op.responses);
    if (res.status >= 200 && res.status < 300) {
      const answer = op.responses[status];
      if (!answer) this.failures.push(`${op.operationId}: ${status} is not documented (${documented.join(', ')})`);
      const responseSchema = answer?.content?.['application/json']?.schema;
      if (responseSchema && res.status !== 204) {
        const problems = this.check(responseSchema, res.body);
        if (problems) this.failures.push(`${op.operationId}: the ${status} answer is not as documented: ${problems}`);
      }
      return res.body as Obj;
    }
    if (mustSucceed || !documented.includes(status)) {
      this.failures.push(`${op.operationId}: ${method.toUpperCase()} ${url} ${JSON.stringify(body)} -> ${status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    return undefined;
  }

  /**
   * One model's documented writes, in an order that leaves nothing behind: create (the
   * fixture's values), update, the list's update, partial update, the list's partial update,
   * the special endpoints under the object, delete it; then the list's delete of another.
   */
  async model(def: ResourceDefinition): Promise<void> {
    const fixture = FIXTURES[objectType(def)];
    const list = listPath(def);
    const detail = `${list}{id}/`;
    const has = (path: string, method: Method) => !!this.op(path, method);
    if (!fixture || !WRITES.some((m) => has(list, m) || has(detail, m))) return;
    const ctx = (await fixture.setup?.(this.app)) ?? {};
    const example = (path: string, method: Method, values: Obj) => this.example(def, this.requestSchema(path, method), values);
    // A new object: made through the documented create where there is one, else seeded.
    const make = async (n: number, documented: boolean): Promise<Obj | undefined> => {
      if (!has(list, 'post')) return fixture.seed?.(this.app, ctx, n);
      const body = await example(list, 'post', fixture.make(ctx, n));
      if (documented) return this.send(list, 'post', list, body, true);
      const res = await this.app.post(list, body);
      return res.status === 201 ? (res.body as Obj) : undefined;
    };
    const a = await make(1000, true);
    if (!a) return;
    const url = `${list}${a.id}/`;
    if (has(detail, 'put')) await this.send(detail, 'put', url, await example(detail, 'put', fixture.make(ctx, 1000)), true);
    if (has(list, 'put')) await this.send(list, 'put', list, [{ ...(await example(detail, 'put', fixture.make(ctx, 1000))), id: a.id }], true);
    if (has(detail, 'patch')) await this.send(detail, 'patch', url, await example(detail, 'patch', fixture.update(ctx)), true);
    if (has(list, 'patch')) await this.send(list, 'patch', list, [{ ...(await example(detail, 'patch', (fixture.bulkUpdate ?? fixture.update)(ctx))), id: a.id }], true);
    for (const [path, item] of Object.entries(this.doc.paths as Record<string, Obj>)) {
      if (path.startsWith(list) && path !== list && path !== detail) for (const method of WRITES) if (item[method]) await this.special(path, method, a);
    }
    // The deletes on new objects: the special endpoints may have removed the first (a denied
    // scheduled job) or given it what protects it (a prefix's allocated addresses).
    for (const [path, n] of [[detail, 1001], [list, 1002]] as const) {
      if (!has(path, 'delete')) continue;
      const b = await make(n, false);
      if (!b) this.failures.push(`${objectType(def)}: no object to delete`);
      else await this.send(path, 'delete', path === list ? list : `${list}${b.id}/`, path === list ? [{ id: b.id }] : undefined, true);
    }
  }

  /** A special endpoint's write, with an example made from its schema, on `obj` for its `{id}`. */
  async special(path: string, method: Method, obj: Obj | null): Promise<void> {
    let url = path.replace('{id}', obj ? String(obj.id) : '');
    // Other parameters (an identity source's slug, a source's own id): the object's, else a made-up one.
    url = url.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(obj?.[name] ?? 'example')));
    const owner = this.registry.all().find((d) => path.startsWith(listPath(d)));
    const schema = this.requestSchema(path, method);
    await this.send(path, method, url, schema ? await this.example(owner, schema, {}) : undefined, false);
  }

  /**
   * An example body: `values` (a fixture's) that the schema lists, and what else it requires,
   * made from the schema; a reference of `def`'s model names the first object of its target.
   */
  async example(def: ResourceDefinition | undefined, schema: Obj | undefined, values: Obj): Promise<Obj> {
    if (!schema) return values;
    const s = this.resolve(schema);
    const out = Object.fromEntries(Object.entries(values).filter(([k]) => s.properties?.[k] !== undefined || s.additionalProperties));
    for (const k of s.required ?? []) {
      if (k in out) continue;
      const f = def?.fields[k];
      const target = f && (f.kind === 'fk' || f.kind === 'm2m') ? f.target() : undefined;
      out[k] = target ? await this.existing(target) : this.made(s.properties?.[k] ?? {});
    }
    return out;
  }

  private async existing(target: ResourceDefinition): Promise<string | undefined> {
    return (await this.app.get(`${listPath(target)}?limit=1`).expect(200)).body.results[0]?.id;
  }

  /** A value of a schema's type. */
  private made(schema: Obj): unknown {
    const s = this.resolve(schema);
    if (s.enum) return s.enum[0];
    if (s.anyOf ?? s.oneOf) return this.made((s.anyOf ?? s.oneOf)[0]);
    if (s.type === 'object') return Object.fromEntries((s.required ?? []).map((k: string) => [k, this.made(s.properties?.[k] ?? {})]));
    if (s.type === 'array') return [];
    if (s.type === 'integer' || s.type === 'number') return s.minimum ?? 1;
    if (s.type === 'boolean') return true;
    if (s.type === 'string') return s.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : 'example';
    return {};
  }

  private resolve(schema: Obj): Obj {
    return typeof schema.$ref === 'string' ? this.doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
  }
}

type Check = (schema: Obj, value: unknown) => string | null;

/**
 * Validators of the document's schemas: OpenAPI 3.0's schema objects as JSON Schema (`nullable`
 * as a type with null), every object schema that lists properties closed to others, so that an
 * undocumented key, sent or answered, is found.
 */
function validators(doc: Obj): Check {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  const convert = (s: any): any => {
    if (Array.isArray(s)) return s.map(convert);
    if (!s || typeof s !== 'object') return s;
    const out: Obj = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$ref') out.$ref = String(v).replace('#/components/schemas/', 'doc#/definitions/');
      else if (k === 'properties') out.properties = Object.fromEntries(Object.entries(v as Obj).map(([p, ps]) => [p, convert(ps)]));
      else if (k !== 'nullable' && k !== 'example' && k !== 'readOnly') out[k] = convert(v);
    }
    if (s.properties && s.additionalProperties === undefined) out.additionalProperties = false;
    return s.nullable ? { anyOf: [out, { type: 'null' }] } : out;
  };
  ajv.addSchema({ $id: 'doc', definitions: convert(doc.components.schemas) });
  const compiled = new Map<string, ValidateFunction>();
  return (schema, value) => {
    const key = JSON.stringify(schema);
    let v = compiled.get(key);
    if (!v) compiled.set(key, (v = ajv.compile(convert(schema))));
    if (v(value)) return null;
    return (v.errors ?? []).map((e) => `body${e.instancePath} ${e.message}${e.params.additionalProperty ? ` (${e.params.additionalProperty})` : ''}`).join(', ');
  };
}
