import { defineResource, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { ident, inList, raw, sql } from '../../../database/sql';
import { tenancyMixin } from '../../tenancy/mixins';
import { userResource } from '../../users/resources/user.resource';
import { rackResource, rackUnits } from './rack.resource';

/** `units`: a non-empty list of unit numbers (positive small integers), as the reference's JSON array of them. */
function unitList(v: unknown): string | undefined {
  if (!Array.isArray(v)) return `Expected a list of items but got type "${v === null ? 'null' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v}".`;
  if (!v.length) return 'This field cannot be blank.';
  for (const u of v) {
    if (typeof u !== 'number' || !Number.isInteger(u)) return `"${typeof u === 'object' ? JSON.stringify(u) : String(u)}" value must be an integer.`;
    if (u < 0) return 'Ensure this value is greater than or equal to 0.';
    if (u > 32767) return 'Ensure this value is less than or equal to 32767.';
  }
  return undefined;
}

const unitsOf = (s: WriteState): number[] => (Array.isArray(s.values.units) ? s.values.units : typeof s.values.units === 'string' ? JSON.parse(s.values.units) : []).map(Number);

/** Units of a rack set aside (for a tenant, by a user): each unit within the rack, none reserved twice in one rack. */
export const rackReservationResource = defineResource({
  app: 'dcim',
  model: 'rackreservation',
  slug: 'rack-reservations',
  verboseName: 'rack reservation',
  naturalKey: ['id'],
  ordering: ['created'],
  display: (_r, h) => {
    const rack = h.related('rack');
    return `Reservation for rack ${rack ? (rack.facility_id ? `${rack.name} (${rack.facility_id})` : rack.name) : ''}`;
  },
  displayUses: { rack: ['name', 'facility_id'] },
  mixins: [tenancyMixin()],
  fields: {
    rack: field.foreignKey(() => rackResource, { required: true, onDelete: 'cascade' }),
    units: field.json({ required: true, validate: unitList, help: 'List of rack unit numbers to reserve' }),
    user: field.foreignKey(() => userResource, {
      required: true,
      onDelete: 'protect',
      default: async ({ ctx }) => ctx.principal.user?.id ?? null,
      help: 'User to associate to reservations. If unspecified, the current user will be used.',
    }),
    description: field.string({ required: true, maxLength: 255 }),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    const rack = s.related('rack');
    if (!rack || !(s.create || s.touched.has('units') || s.touched.has('rack'))) return;
    const valid = new Set(rackUnits(rack));
    const invalid = unitsOf(s).filter((u) => !valid.has(u));
    if (invalid.length) return { units: [`Invalid unit(s) for ${rack.u_height}U rack: ${invalid.join(', ')}`] };
  },
  /** Units reserved twice in one rack, by stored reservations or by others of the batch (the racks locked, so two writers take turns). */
  async validateBatch(states, w) {
    const checked = states.filter((s) => s.create || s.touched.has('units') || s.touched.has('rack'));
    if (!checked.length) return;
    const racks = [...new Set(checked.map((s) => String(s.values.rack_id)))];
    await w.exec.query(sql`SELECT ${ident('id')} FROM ${ident('dcim_rack')} WHERE ${inList(ident('id'), racks)}${raw(w.exec.dialect.forUpdate)}`);
    const stored = await w.exec.query(sql`SELECT ${ident('id')}, ${ident('rack_id')}, ${ident('units')} FROM ${ident('dcim_rackreservation')} WHERE ${inList(ident('rack_id'), racks)}`);
    const batchIds = new Set(checked.map((s) => String(s.values.id)));
    const taken = new Map<string, Set<number>>();
    const take = (rack: string, units: number[]) => {
      const set = taken.get(rack) ?? new Set<number>();
      units.forEach((u) => set.add(u));
      taken.set(rack, set);
    };
    for (const r of stored) {
      if (batchIds.has(String(r.id))) continue;
      take(String(r.rack_id), (typeof r.units === 'string' ? JSON.parse(r.units) : r.units ?? []).map(Number));
    }
    return states.map((s): FieldErrors | void => {
      if (!checked.includes(s)) return;
      const rack = String(s.values.rack_id);
      const units = unitsOf(s);
      const conflicting = units.filter((u) => taken.get(rack)?.has(u));
      take(rack, units);
      if (conflicting.length) return { units: [`The following units have already been reserved: ${conflicting.join(', ')}`] };
    });
  },
});
