import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Action, RequestContext } from '../../../core/context';
import type { ResourceDefinition } from '../../../core/resource/definition';
import { ValidationError } from '../../../core/resource/errors';
import { checkRegex } from '../../../core/resource/query/lookups';
import { ValueError } from '../../../core/resource/query/values';
import { ResourceRegistry } from '../../../core/resource/registry';
import { Db } from '../../../database/db';
import { column, defineTable } from '../../../database/schema/schema';
import { ident, join, sql } from '../../../database/sql';

/**
 * Content types with the integer ids Nautobot's ContentType has: one row per model the registry
 * has ever held (plugins' too), given the next free id the first time a start-up sees it and
 * never renumbered, so an id a client stored stays valid across restarts and upgrades.
 */
export const contentTypeTable = defineTable({
  name: 'extras_contenttype',
  columns: { id: column.integer(), app_label: column.string(100), model: column.string(100) },
  primaryKey: ['id'],
  indexes: [{ columns: ['app_label', 'model'], unique: true }],
});

export interface ContentTypeRow {
  id: number;
  app_label: string;
  model: string;
}

/** The apps' verbose names as the reference's AppConfigs give them (the others: the label, capitalised). */
const APP_NAMES: Record<string, string> = { dcim: 'DCIM', ipam: 'IPAM', auth: 'Authentication and Authorization' };

/** Adds the content types of the models registered now to the table, at start-up. */
@Injectable()
export class ContentTypeSeeder implements OnApplicationBootstrap {
  constructor(
    private readonly db: Db,
    private readonly registry: ResourceRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Two processes starting together may both add a type: the loser's statement fails on the
    // key and it tries again with what the winner stored.
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.seed();
      } catch (e) {
        if (attempt >= 4) throw e;
      }
    }
  }

  private async seed(): Promise<void> {
    await this.db.transaction(async (tx) => {
      const rows = await tx.query<ContentTypeRow>(sql`SELECT ${ident('id')}, ${ident('app_label')}, ${ident('model')} FROM ${ident(contentTypeTable.name)}`);
      const known = new Set(rows.map((r) => `${r.app_label}.${r.model}`));
      let next = rows.reduce((m, r) => Math.max(m, Number(r.id)), 0) + 1;
      const missing = this.registry
        .all()
        .map((d) => ({ app_label: d.appLabel ?? d.app, model: d.model }))
        .filter((t) => !known.has(`${t.app_label}.${t.model}`))
        .sort((a, b) => (a.app_label === b.app_label ? cmp(a.model, b.model) : cmp(a.app_label, b.app_label)));
      if (!missing.length) return;
      const values = missing.map((t) => sql`(${next++}, ${t.app_label}, ${t.model})`);
      await tx.execute(sql`INSERT INTO ${ident(contentTypeTable.name)} (${ident('id')}, ${ident('app_label')}, ${ident('model')}) VALUES ${join(values)}`);
    });
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every content type, ordered by app label then model (the reference's ordering). */
export async function allContentTypes(ctx: RequestContext): Promise<ContentTypeRow[]> {
  const rows = await ctx.db.query<ContentTypeRow>(
    sql`SELECT ${ident('id')}, ${ident('app_label')}, ${ident('model')} FROM ${ident(contentTypeTable.name)} ORDER BY ${ident('app_label')}, ${ident('model')}`,
  );
  return rows.map((r) => ({ id: Number(r.id), app_label: String(r.app_label), model: String(r.model) }));
}

/** `<app verbose name> | <model verbose name>`, as Django's `app_labeled_name` (the model name alone for a type no longer installed). */
export function contentTypeDisplay(ctx: RequestContext, r: ContentTypeRow): string {
  return contentTypeLabel(ctx.registry.get(`${r.app_label}.${r.model}`), r.app_label, r.model);
}

/** The same for a model's definition (undefined: not installed). */
export function contentTypeLabel(def: ResourceDefinition | undefined, appLabel: string, model: string): string {
  if (!def) return model;
  return `${APP_NAMES[appLabel] ?? appLabel.charAt(0).toUpperCase() + appLabel.slice(1)} | ${def.verboseName}`;
}

type Test = (r: ContentTypeRow) => boolean | Promise<boolean>;

const STRING_LOOKUPS: Record<string, (value: string) => (s: string) => boolean> = {
  '': (v) => (s) => s === v,
  ie: (v) => (s) => s.toLowerCase() === v.toLowerCase(),
  ic: (v) => (s) => s.toLowerCase().includes(v.toLowerCase()),
  isw: (v) => (s) => s.toLowerCase().startsWith(v.toLowerCase()),
  iew: (v) => (s) => s.toLowerCase().endsWith(v.toLowerCase()),
  re: (v) => {
    const re = new RegExp(checkRegex(v));
    return (s) => re.test(s);
  },
  ire: (v) => {
    const re = new RegExp(checkRegex(v), 'i');
    return (s) => re.test(s);
  },
};

const NUMBER_LOOKUPS: Record<string, (v: number) => (n: number) => boolean> = {
  '': (v) => (n) => n === v,
  lt: (v) => (n) => n < v,
  lte: (v) => (n) => n <= v,
  gt: (v) => (n) => n > v,
  gte: (v) => (n) => n >= v,
};

const ACTIONS: Record<string, Action> = { can_add: 'add', can_change: 'change', can_delete: 'delete', can_view: 'view' };
const NON_FILTERS = new Set(['limit', 'offset', 'format', 'api_version', 'depth', 'brief', 'include', 'exclude_m2m']);

function bool(v: string): boolean {
  const s = v.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(s)) return true;
  if (['false', '0', 'no', 'off'].includes(s)) return false;
  throw new ValueError(`Select a valid choice. ${v} is not one of the available choices.`);
}

/** Whether a model takes a feature named as the reference names it (`custom_fields`, `statuses`, ...). */
function hasFeature(def: ResourceDefinition | undefined, feature: string): boolean {
  if (!def) return false;
  const camel = feature.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  if (camel === 'computedFields' || camel === 'customFields') return def.features.includes('customFields');
  if (camel === 'graphql') return true;
  return def.features.includes(camel);
}

/**
 * The query string of `/api/extras/content-types/` as one test of a row (the reference's
 * ContentTypeFilterSet: `id` with the number lookups, `app_label` and `model` with the string
 * ones, `q`, `can_add`/`can_change`/`can_delete`/`can_view`, `has_serializer`, `feature`).
 * Several values of one filter match any of them; a negated lookup (`__n`) matches none. An
 * unknown filter is a 400 under STRICT_FILTERING, a bad value always.
 */
export function contentTypeFilter(ctx: RequestContext, q: Map<string, string[]>): Test[] {
  const tests: Test[] = [];
  const errors: Record<string, string[]> = Object.create(null);
  for (const [key, raw] of q) {
    if (NON_FILTERS.has(key)) continue;
    const values = raw.map((v) => v.trim()).filter((v) => v !== '');
    if (!values.length) continue;
    try {
      const t = term(ctx, key, values);
      if (t) tests.push(t);
      else if (ctx.settings.STRICT_FILTERING) errors[key] = ['Unknown filter field'];
    } catch (e) {
      if (!(e instanceof ValueError)) throw e;
      errors[key] = [e.message];
    }
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return tests;
}

function term(ctx: RequestContext, key: string, values: string[]): Test | null {
  if (key === 'q') {
    const v = values[0].toLowerCase();
    return (r) => r.app_label.toLowerCase().includes(v) || r.model.toLowerCase().includes(v);
  }
  if (key in ACTIONS) {
    const want = bool(values[values.length - 1]);
    const action = ACTIONS[key];
    return async (r) => {
      const type = `${r.app_label}.${r.model}`;
      const granted = ctx.registry.get(type) ? await ctx.permissions.constraints(ctx.principal, type, action) : ctx.principal.user?.is_superuser ? null : [];
      return (granted === null || granted.length > 0) === want;
    };
  }
  if (key === 'has_serializer') {
    const want = bool(values[values.length - 1]);
    return (r) => !!ctx.registry.get(`${r.app_label}.${r.model}`) === want;
  }
  if (key === 'feature') return (r) => values.some((f) => hasFeature(ctx.registry.get(`${r.app_label}.${r.model}`), f));
  const [name, lookup = ''] = key.split('__', 2);
  const negated = lookup === 'n' || (lookup.startsWith('n') && lookup.length > 1 && lookup.slice(1) in STRING_LOOKUPS);
  const positive = lookup === 'n' ? '' : negated ? lookup.slice(1) : lookup;
  if (name === 'id') {
    const make = NUMBER_LOOKUPS[positive];
    if (!make || (negated && positive !== '')) return null;
    const tests = values.map((v) => {
      if (!/^-?\d+$/.test(v)) throw new ValueError('Enter a number.');
      return make(Number(v));
    });
    return (r) => tests.some((t) => t(r.id)) !== negated;
  }
  if (name === 'app_label' || name === 'model') {
    const make = STRING_LOOKUPS[positive];
    if (!make) return null;
    const tests = values.map(make);
    return (r) => tests.some((t) => t(r[name])) !== negated;
  }
  return null;
}
