import type { TestApp } from '../harness';
import type { Fixture } from './fixture';
import { Obj, stripWith } from './shared';

/**
 * One model's run of the contract on one server: its fixture, its setup's result and first
 * objects (filled before its tests), and the helpers every section uses.
 */
export class ModelRun {
  ctx: Obj = {};
  seq = 1000;
  readonly fixtures: Obj[] = [];
  readonly strip: (o: Obj) => Obj;
  readonly listAllow: string;
  readonly detailAllow: string;
  /** The writes the API offers on this model (its definition's `writes`; none when read-only). */
  readonly creates: boolean;
  readonly updates: boolean;
  readonly deletes: boolean;

  constructor(
    readonly t: () => TestApp,
    readonly type: string,
    readonly path: string,
    readonly c: Fixture,
    writes: readonly string[] = c.readOnly ? [] : ['create', 'update', 'delete'],
  ) {
    this.strip = stripWith(c.createOnly ?? []);
    [this.creates, this.updates, this.deletes] = ['create', 'update', 'delete'].map((w) => writes.includes(w));
    const methods = (detail: boolean) => ['GET', ...(this.creates && !detail ? ['POST'] : []), ...(this.updates ? ['PUT', 'PATCH'] : []), ...(this.deletes ? ['DELETE'] : []), 'HEAD', 'OPTIONS'].join(', ');
    this.listAllow = methods(false);
    this.detailAllow = methods(true);
  }

  readonly detail = (id: string) => `${this.path}${id}/`;

  readonly create = async (payload: Obj): Promise<Obj> => {
    const res = await this.t().post(this.path, payload);
    if (res.status !== 201) throw new Error(`create ${this.path} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Obj;
  };

  /** A new object to change or delete: seeded where the API creates none, else created. */
  readonly fresh = async (): Promise<Obj> => (this.c.seed ? this.c.seed(this.t(), this.ctx, this.seq++) : this.create(this.c.make(this.ctx, this.seq++)));

  readonly count = async (): Promise<number> => (await this.t().get(`${this.path}?limit=1`).expect(200)).body.count as number;

  /** Runs the setup and makes (or seeds) the first three objects. */
  async prepare(): Promise<void> {
    const t = this.t();
    this.ctx = (await this.c.setup?.(t)) ?? {};
    for (let i = 1; i <= 3; i++) this.fixtures.push(this.c.seed ? await this.c.seed(t, this.ctx, i) : await this.create(this.c.make(this.ctx, i)));
  }
}
