import { objectType } from '../../../core/resource/definition';
import type { ModelExtension } from '../../../core/resource/extension';
import { RenderBudget, Rendered, templates } from '../../../core/template/template';
import { computedFieldsFor } from './source';
import { addPath, PathTree, templateObjects } from './objects';

/** Template steps one computed field may spend on a batch (a page): past it, the rest show the fallback. */
export const BATCH_STEPS = 500_000;

/** A render stopped by the wall-time backstop: the template is not tried again for the rest of the batch. */
const OUT_OF_TIME = /render limit exceeded \(\d+ ms\)/;

/**
 * Computed fields on every model: `computed_fields` (`include=computed_fields`, and on write responses), `{key: value}` for each
 * computed field of the model's content type, rendered by the template sandbox over `obj` (see
 * objects.ts for what it holds). A template that fails to render shows its fallback value.
 * Definitions come from a cache (source.ts); related objects the templates follow are loaded for
 * the whole batch, one statement per related model per hop. Each render is bounded by the
 * sandbox, and each field's renders of a batch share a budget of steps, so a page costs at most
 * BATCH_STEPS per field whatever its size.
 */
export const computedFieldsExtension: ModelExtension = {
  represent: {
    keys: { computed_fields: { schema: { type: 'object', additionalProperties: true }, type: 'json', label: 'Computed fields' } },
    include: 'computed_fields',
    async load({ ctx, exec, def }, rows) {
      const fields = await computedFieldsFor(ctx, objectType(def));
      if (!fields.length) return null;
      const compiled = fields.map((f) => {
        const t = templates.compile(f.template);
        // Renders by the values the template reads: rows that agree on them (the same device type, location) share one render.
        const memo = t.paths.some((p) => p.includes('*')) ? null : new Map<string, Rendered>();
        return { ...f, t, budget: new RenderBudget(BATCH_STEPS), memo };
      });
      const tree: PathTree = new Map();
      for (const c of compiled) for (const p of c.t.paths) if (p[0] === 'obj') addPath(tree, p.slice(1));
      const objects = await templateObjects(ctx, exec, def, rows, tree);
      const out = new Map<string, Record<string, string>>();
      const spent = new Set<string>();
      for (const row of rows) {
        const id = String(row.id);
        const obj = objects.get(id);
        const values: Record<string, string> = {};
        for (const c of compiled) {
          if (spent.has(c.key)) {
            values[c.key] = c.fallback;
            continue;
          }
          const memoKey = c.memo ? JSON.stringify(c.t.paths.map((p) => dig(obj, p))) : '';
          let r = c.memo?.get(memoKey);
          if (!r) {
            r = templates.render(c.t, { obj }, c.budget);
            c.memo?.set(memoKey, r);
          }
          if (r.error !== undefined) {
            values[c.key] = c.fallback;
            if (OUT_OF_TIME.test(r.error)) spent.add(c.key);
          } else values[c.key] = r.value;
        }
        out.set(id, values);
      }
      return out;
    },
    write(out, row, _url, loaded) {
      out.computed_fields = (loaded as Map<string, Record<string, string>> | null)?.get(String(row.id)) ?? {};
    },
  },
};

/**
 * What decides a template's path (`['obj', 'location', 'name']`) in its context: the value at the
 * path, or the deepest value on it when a segment is no own property (a list's `size` or `first`
 * depends on the whole list).
 */
function dig(obj: unknown, path: string[]): unknown {
  if (path[0] !== 'obj') return null;
  let v: unknown = obj;
  for (let i = 1; i < path.length; i++) {
    if (v === null || v === undefined || typeof v !== 'object' || !Object.hasOwn(v, path[i])) return v ?? null;
    v = (v as Record<string, unknown>)[path[i]];
  }
  return v ?? null;
}
