import { defineResource, model, WriteContext } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { unscoped } from '../../../core/resource/query/rows';
import { visibleIds } from '../../../core/resource/query/scope';
import type { Row } from '../../../database/db';
import { FALSE, ident, inList, sql } from '../../../database/sql';
import { roleMixin, statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { DEVICE_STATUSES } from '../choices';
import { instantiateComponents } from '../instantiate';
import { macValues } from '../mac';
import { locatedMixin } from '../mixins';
import { MODULE_DEPTH, moduleHolderFilters, modulesInDevices } from '../module-tree';
import { renderModuleNames } from '../module-names';
import { isSet } from './component-template';
import { compatibleWithModuleBay, moduleTypeResource } from './module-type.resource';

/** An optional text that is part of a unique key: blank is stored as null, so blanks never collide. */
const blankAsNull = (v: unknown) => (v === '' ? null : v);

/** The modules above a module bay (its module, that module's bay's module, ...): one statement per level. */
async function modulesAbove(w: WriteContext, bayId: unknown): Promise<string[]> {
  const out: string[] = [];
  let bay: unknown = bayId;
  for (let guard = 0; bay && guard < 64; guard++) {
    const [row] = await w.exec.query<{ module_id: string | null; bay_id: string | null }>(
      sql`SELECT b.${ident('parent_module_id')} AS ${ident('module_id')}, m.${ident('parent_module_bay_id')} AS ${ident('bay_id')} FROM ${ident('dcim_modulebay')} b
          LEFT JOIN ${ident('dcim_module')} m ON m.${ident('id')} = b.${ident('parent_module_id')} WHERE b.${ident('id')} = ${bay}`,
    );
    if (!row?.module_id || out.includes(String(row.module_id))) break;
    out.push(String(row.module_id));
    bay = row.bay_id;
  }
  return out;
}

/** The manufacturer of what holds a module bay (its device's type's, or its module's type's). */
async function bayOwnerManufacturer(w: WriteContext, bay: Row): Promise<string | null> {
  const [row] = bay.parent_device_id
    ? await w.exec.query<{ id: string }>(sql`SELECT t.${ident('manufacturer_id')} AS ${ident('id')} FROM ${ident('dcim_device')} d JOIN ${ident('dcim_devicetype')} t ON t.${ident('id')} = d.${ident('device_type_id')} WHERE d.${ident('id')} = ${bay.parent_device_id}`)
    : await w.exec.query<{ id: string }>(sql`SELECT t.${ident('manufacturer_id')} AS ${ident('id')} FROM ${ident('dcim_module')} m JOIN ${ident('dcim_moduletype')} t ON t.${ident('id')} = m.${ident('module_type_id')} WHERE m.${ident('id')} = ${bay.parent_module_id ?? null}`);
  return row ? String(row.id) : null;
}

/** The reference's str() of a module: its type's, with its serial and asset tag. */
const moduleText = (model: unknown, serial: unknown, assetTag: unknown) => `${model}${serial ? ` (Serial: ${serial})` : ''}${assetTag ? ` (Asset Tag: ${assetTag})` : ''}`;

/**
 * What a module's display reads of what holds its bay, `p` the path to a bay from the module's
 * own: the device's name, or the parent module's type, serial, asset tag and location and, up to
 * `levels` modules up, what holds that module's bay (the reference's display is recursive).
 */
function holderColumns(p: string, levels: number): string[] {
  const m = `${p}parent_module__`;
  return [`${p}parent_device__name`, ...(levels ? [`${m}module_type__model`, `${m}serial`, `${m}asset_tag`, `${m}location__name`, ...holderColumns(`${m}parent_module_bay__`, levels - 1)] : [])];
}

/** The display of what holds a module's bay (a device's name, or the parent module's display); null where something on the way is hidden. */
function holderText(bay: Row, p: string, levels: number): string | null {
  const device = bay[`${p}parent_device__name`];
  if (device !== null && device !== undefined) return String(device);
  const m = `${p}parent_module__`;
  const model = levels ? bay[`${m}module_type__model`] : null;
  if (model === null || model === undefined) return null;
  const location = bay[`${m}location__name`];
  if (location !== null && location !== undefined) return `${moduleText(model, bay[`${m}serial`], bay[`${m}asset_tag`])} at location ${location}`;
  const above = holderText(bay, `${m}parent_module_bay__`, levels - 1);
  return above === null ? null : `${model} installed in ${above}`;
}

/** A module family's name in a message, where the requester may view it; "you may not view" otherwise. */
async function familyName(w: WriteContext, id: unknown): Promise<string> {
  const family = model('dcim.modulefamily')();
  if (!(await visibleIds(w.ctx, w.exec, family, [id])).has(String(id))) return 'a family you may not view';
  const [row] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} ${unscoped(family).from(sql`${ident('id')} = ${id}`)}`);
  return `the family ${row?.name ?? ''}`;
}

/**
 * A line card, supervisor or other replaceable part of a module type: installed in a module bay
 * (of a device, or of another module: modules nest) or kept in a location (in storage), never
 * both. A new module gets its type's components in the same transaction, their `{module}` names
 * filled in from the bays' positions. Its natural key is the id, as the reference's.
 */
export const moduleResource = defineResource({
  app: 'dcim',
  model: 'module',
  slug: 'modules',
  naturalKey: ['id'],
  ordering: ['parent_module_bay_id', 'location_id', 'module_type_id', 'asset_tag', 'serial'],
  display: (r, h) => {
    const type = String(h.related('module_type')?.model ?? '');
    // In storage: at its location, named where the requester may view it.
    if (r.location_id) return `${moduleText(type, r.serial, r.asset_tag)} at location ${h.related('location')?.name ?? ''}`;
    const bay = h.related('parent_module_bay');
    return `${type} installed in ${bay ? (holderText(bay, '', MODULE_DEPTH - 1) ?? bay.name) : ''}`;
  },
  displayUses: { module_type: ['model'], location: ['name'], parent_module_bay: ['name', ...holderColumns('', MODULE_DEPTH - 1)] },
  mixins: [locatedMixin({ nullable: true }), statusMixin({ defaults: DEVICE_STATUSES }), roleMixin(), tenancyMixin()],
  fields: {
    module_type: field.foreignKey(() => moduleTypeResource, { required: true, onDelete: 'protect', relatedName: 'modules' }),
    parent_module_bay: field.foreignKey(model('dcim.modulebay'), { nullable: true, onDelete: 'cascade', relatedName: 'installed_module', index: false }),
    serial: field.string({ maxLength: 255, nullable: true, normalize: blankAsNull, index: true, label: 'Serial number' }),
    asset_tag: field.string({ maxLength: 255, nullable: true, unique: true, normalize: blankAsNull, label: 'Asset tag', help: 'A unique tag used to identify this module' }),
  },
  uniqueTogether: [
    // A module bay holds one module (the reference's one-to-one).
    { fields: ['parent_module_bay'], field: 'parent_module_bay', message: 'module with this parent module bay already exists.' },
    { fields: ['module_type', 'serial'] },
  ],
  search: ['asset_tag', 'serial', 'module_type__manufacturer__name', 'module_type__model', 'parent_module_bay__parent_device__name', 'parent_module_bay__name', 'parent_module_bay__position'],
  filterAliases: { manufacturer: 'module_type__manufacturer', module_family: 'module_type__module_family' },
  filters: {
    is_installed: isSet('parent_module_bay_id'),
    /** Modules installed in the device (name or id), directly or in its modules, down to four levels. */
    device: {
      compile: async (values, _l, h) => {
        const ids = await h.resolveIds(model('dcim.device')(), values);
        return ids.length ? sql`${h.col('id')} IN (${await modulesInDevices(h, ids, MODULE_DEPTH)})` : FALSE;
      },
    },
    compatible_with_module_bay: compatibleWithModuleBay(async (h) => (await h.rows(moduleTypeResource, 't')).select('module_family_id', sql`${ident('t', 'id')} = ${h.col('module_type_id')}`)),
    /** Modules with an interface of this MAC address. */
    mac_address: {
      compile: async (values, _l, h) => sql`${h.col('id')} IN ${(await h.rows(model('dcim.interface')(), 'mi')).select('module_id', inList(ident('mi', 'mac_address'), macValues(values, h.invalid)))}`,
    },
    ...moduleHolderFilters('parent_module_id'),
  },
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w): Promise<FieldErrors | void> {
    const bay = s.related('parent_module_bay');
    if (bay && s.values.location_id) return { non_field_errors: ['Only one of parent_module_bay or location must be set'] };
    if (!bay && !s.values.location_id) return { __all__: ['One of location or parent_module_bay must be set'] };
    if (!bay) return;
    const type = s.related('module_type');
    if (type && bay.module_family_id && String(type.module_family_id ?? '') !== String(bay.module_family_id)) {
      const wanted = await familyName(w, bay.module_family_id);
      const has = type.module_family_id ? `in ${await familyName(w, type.module_family_id)}` : 'not assigned to a family';
      return { module_type: [`The selected module bay requires a module type in ${wanted}, but the selected module type is ${has}.`] };
    }
    // What follows reads the bays above: only when the module (re)enters a bay or changes type.
    const placed = s.create || s.touched.has('parent_module_bay') || s.touched.has('module_type');
    if (!placed) return;
    if (type && [true, 1, '1'].includes(bay.requires_first_party_modules as never)) {
      const maker = await bayOwnerManufacturer(w, bay);
      if (maker && maker !== String(type.manufacturer_id)) return { module_type: ['The selected module bay requires a module type from the same manufacturer as the parent device or module'] };
    }
    if (!s.create && s.touched.has('parent_module_bay') && (await modulesAbove(w, bay.id)).includes(String(s.values.id))) return { __all__: ['Creating this instance would cause an infinite loop.'] };
  },
  /**
   * A new module gets its type's components (the reference's create_components), and the
   * `{module}` variables of its components' names, and of those of the modules below it when it
   * moves to another bay, take the bays' positions.
   */
  async afterSave(_ids, w, states) {
    const created = states.filter((s) => s.create);
    await instantiateComponents(w, created.map((s) => ({ id: String(s.values.id), typeId: String(s.values.module_type_id) })), 'module');
    const moved = states.filter((s) => !s.create && String(s.existing?.parent_module_bay_id ?? '') !== String(s.values.parent_module_bay_id ?? ''));
    await renderModuleNames(w, moved.map((s) => String(s.values.id)));
  },
});
