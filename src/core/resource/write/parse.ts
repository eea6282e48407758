import { newId } from '../../ids';
import type { Row } from '../../../database/db';
import { fieldList, objectType, ResourceDefinition } from '../definition';
import { fieldInVersion, fieldRequired, type Field } from '../fields';
import { isUuid, parseUuid, ValueError } from '../query/values';
import { addError, NOT_NULL, parseCompositeInput, parseScalarInput, REQUIRED, writable } from '../serialize/input';
import { parseRef } from '../serialize/references';
import { Item, newItem, same, WriteMode, WriteRun } from './item';

/** The first stage of a write: what the client sent, field by field, into an item (column values, references to resolve, errors). */
export function parse(run: WriteRun, def: ResourceDefinition, input: Record<string, unknown>, index: number, mode: WriteMode, existing: Row | null): Item {
  const item = newItem(index, existing ? String(existing.id) : newId(), existing);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    item.errors.non_field_errors = [`Invalid data. Expected a dictionary, but got ${Array.isArray(input) ? 'list' : typeof input === 'string' ? 'str' : typeof input}.`];
    return item;
  }
  if (mode === 'create' && input.id !== undefined && input.id !== null) {
    if (isUuid(input.id)) {
      item.id = parseUuid(input.id);
      item.idGiven = true;
    } else addError(item.errors, 'id', 'Must be a valid UUID.');
  }
  const full = mode !== 'patch';
  for (const f of fieldList(def)) {
    if (!writable(f) || !fieldInVersion(f, run.ctx.apiVersion)) continue;
    const present = f.name in input || (f.kind === 'gfk' && (f.typeKey! in input || f.idKey! in input));
    if (!present) {
      const hasDefault = mode === 'create' && f.kind === 'fk' && !!f.default;
      if (full && fieldRequired(f, run.ctx.apiVersion) && !hasDefault) addError(item.errors, f.kind === 'gfk' ? f.typeKey! : f.name, REQUIRED);
      continue;
    }
    try {
      parseField(run, def, f, input, item);
    } catch (e) {
      if (e instanceof ValueError) addError(item.errors, f.name, e.message);
      else throw e;
    }
  }
  for (const e of run.ctx.registry.extensionsOf(def)) if (e.write?.key && Object.hasOwn(input, e.write.key)) item.extended.set(e, input[e.write.key]);
  return item;
}

export function parseField(run: WriteRun, def: ResourceDefinition, f: Field, input: Record<string, unknown>, item: Item): void {
  const value = input[f.name];
  const immutable = (f as { immutable?: string }).immutable;
  switch (f.kind) {
    case 'scalar': {
      const v = parseScalarInput(f, value);
      if (immutable && item.existing && !same(item.existing[f.column], v)) throw new ValueError(immutable);
      item.set[f.column] = v;
      item.touched.add(f.name);
      return;
    }
    case 'composite': {
      const cols = parseCompositeInput(f, value);
      if (immutable && item.existing && Object.entries(cols).some(([c, v]) => !same(item.existing![c], v))) throw new ValueError(immutable);
      Object.assign(item.set, cols);
      item.touched.add(f.name);
      return;
    }
    case 'fk': {
      item.touched.add(f.name);
      if (value === null || value === undefined || value === '') {
        if (!f.nullable) throw new ValueError(value === '' ? 'This field may not be blank.' : NOT_NULL);
        item.set[f.column] = null;
        item.related.set(f.name, null);
        return;
      }
      item.refs.push({ field: f, target: f.target(), specs: [parseRef(f.target(), value)], many: false });
      return;
    }
    case 'gfk': {
      item.touched.add(f.name);
      // An update may name one part alone (a client sending only what changed): the other is the stored one.
      const given = (k: string) => k in input || !item.existing || f.name in input;
      const type = given(f.typeKey!) ? input[f.typeKey!] : item.existing![f.typeColumn];
      const id = given(f.idKey!) ? input[f.idKey!] : item.existing![f.idColumn];
      // The object itself may be named instead of its id, in any reference form (natural key,
      // attribute object, URL): the form a CSV export writes, `<name>_type` + natural key.
      const named = id === null || id === undefined ? input[f.name] : undefined;
      if ((type === null || type === undefined) && (id === null || id === undefined) && (named === null || named === undefined)) {
        if (!f.nullable) throw new ValueError(NOT_NULL);
        item.set[f.typeColumn] = null;
        item.set[f.idColumn] = null;
        return;
      }
      const target = typeof type === 'string' ? run.ctx.registry.get(type) : undefined;
      if (!target || (f.allowed && !f.allowed(target))) {
        addError(item.errors, f.typeKey!, typeof type === 'string' && /^\w+\.\w+$/.test(type) ? `Invalid content type: ${type}` : `Invalid value. Specify a content type as '<app_label>.<model_name>'.`);
        return;
      }
      if (named !== null && named !== undefined) {
        item.set[f.typeColumn] = objectType(target);
        item.refs.push({ field: f, target, specs: [parseRef(target, named)], many: false });
        return;
      }
      if (!isUuid(id)) {
        addError(item.errors, f.idKey!, 'Must be a valid UUID.');
        return;
      }
      item.set[f.typeColumn] = objectType(target);
      item.refs.push({ field: f, target, specs: [{ kind: 'id', id: parseUuid(id) }], many: false, errorKey: f.idKey! });
      return;
    }
    case 'm2m': {
      item.touched.add(f.name);
      if (f.single && Array.isArray(value)) throw new ValueError('Value must be passed directly (e.g. "foo": 123); do not use a list.');
      const list = value === null ? [] : Array.isArray(value) ? value : [value];
      const target = f.target();
      item.refs.push({ field: f, target, specs: list.map((v) => parseRef(target, v)), many: true });
      return;
    }
    case 'contentTypes': {
      item.touched.add(f.name);
      const list = value === null ? [] : Array.isArray(value) ? value : typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : null;
      if (!list) throw new ValueError('Expected a list of items but got type "' + typeof value + '".');
      const out: string[] = [];
      for (const v of list) {
        const t = typeof v === 'string' ? run.ctx.registry.get(v) : undefined;
        if (!t || !f.allowed(t)) {
          throw new ValueError(typeof v === 'string' && /^\w+\.\w+$/.test(v) ? `Invalid content type: ${v}` : `Invalid value. Specify a content type as '<app_label>.<model_name>'.`);
        }
        if (!out.includes(v as string)) out.push(v as string);
      }
      item.contentTypes.set(f.name, out.sort());
      return;
    }
    default:
      void def;
  }
}