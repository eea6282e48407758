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

  constructor(
    readonly t: () => TestApp,
    readonly type: string,
    readonly path: string,
    readonly c: Fixture,
  ) {
    this.strip = stripWith(c.createOnly ?? []);
    this.listAllow = c.readOnly ? 'GET, HEAD, OPTIONS' : 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS';
    this.detailAllow = c.readOnly ? 'GET, HEAD, OPTIONS' : 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';
  }

  readonly detail = (id: string) => `${this.path}${id}/`;

  readonly create = async (payload: Obj): Promise<Obj> => {
    const res = await this.t().post(this.path, payload);
    if (res.status !== 201) throw new Error(`create ${this.path} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Obj;
  };

  readonly count = async (): Promise<number> => (await this.t().get(`${this.path}?limit=1`).expect(200)).body.count as number;

  /** Runs the setup and makes (or seeds) the first three objects. */
  async prepare(): Promise<void> {
    const t = this.t();
    this.ctx = (await this.c.setup?.(t)) ?? {};
    for (let i = 1; i <= 3; i++) this.fixtures.push(this.c.seed ? await this.c.seed(t, this.ctx, i) : await this.create(this.c.make(this.ctx, i)));
  }
}
