import { defineResource } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { ident, sql } from '../../../database/sql';
import { locationResource } from '../../dcim/resources/location.resource';

export const VID_MIN = 1;
export const VID_MAX = 4094;

/** "1-100,200,300-310" -> [[1,100],[200,200],[300,310]]; null when malformed or outside 1-4094. */
export function parseVidRanges(text: string): [number, number][] | null {
  const out: [number, number][] = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const m = /^(\d{1,4})(?:\s*-\s*(\d{1,4}))?$/.exec(part);
    if (!m) return null;
    const lo = Number(m[1]);
    const hi = Number(m[2] ?? m[1]);
    if (lo < VID_MIN || hi > VID_MAX || lo > hi) return null;
    out.push([lo, hi]);
  }
  return out;
}

export const inVidRanges = (ranges: [number, number][], vid: number) => ranges.some(([lo, hi]) => vid >= lo && vid <= hi);

export const vlanGroupResource = defineResource({
  app: 'ipam',
  model: 'vlangroup',
  slug: 'vlan-groups',
  verboseName: 'VLAN group',
  verboseNamePlural: 'VLAN groups',
  mixins: [named(255)],
  fields: {
    location: field.foreignKey(() => locationResource, { nullable: true, onDelete: 'protect' }),
    description: field.string({ maxLength: 255 }),
    range: field.string({
      maxLength: 255,
      default: `${VID_MIN}-${VID_MAX}`,
      blank: false,
      help: `Permitted VID range(s) as comma-separated list, default '${VID_MIN}-${VID_MAX}' if left blank.`,
      validate: (v: string) => (parseVidRanges(v) ? undefined : `Enter ranges of VLAN IDs between ${VID_MIN} and ${VID_MAX}, such as "1-100,200".`),
    }),
    vlan_count: field.count('ipam.vlan', 'vlan_group'),
  },
  search: ['description'],
  features: ['tags', 'customFields', 'notes', 'locations'],
  async rules(s, w) {
    const errors: FieldErrors = {};
    const location = s.related('location');
    if (location && s.touched.has('location')) {
      const [ok] = await w.exec.query(
        sql`SELECT 1 AS x FROM ${ident('dcim_locationtype_content_types')} WHERE ${ident('locationtype_id')} = ${location.location_type_id} AND ${ident('content_type')} = ${'ipam.vlangroup'}`,
      );
      if (!ok) {
        const [type] = await w.exec.query<{ name: string }>(sql`SELECT ${ident('name')} FROM ${ident('dcim_locationtype')} WHERE ${ident('id')} = ${location.location_type_id}`);
        errors.location = [`VLAN groups may not associate to locations of type "${type?.name}".`];
      }
    }
    const ranges = parseVidRanges(String(s.values.range));
    if (ranges && s.existing && s.touched.has('range')) {
      const vids = await w.exec.query<{ vid: number }>(sql`SELECT ${ident('vid')} FROM ${ident('ipam_vlan')} WHERE ${ident('vlan_group_id')} = ${s.values.id} ORDER BY ${ident('vid')}`);
      const outside = vids.map((v) => Number(v.vid)).filter((v) => !inVidRanges(ranges, v));
      if (outside.length) errors.range = [`VLAN group range may not be re-sized due to existing VLANs (IDs: ${outside.join(',')}).`];
    }
    return errors;
  },
});
