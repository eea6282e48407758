import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { tree } from '../../../core/resource/mixin';
import { locatedMixin, locationName, withinLocation } from '../mixins';

/** Racks grouped within a location (a floor, a cage), as a tree: a child group lies in its parent's location or below it. */
export const rackGroupResource = defineResource({
  app: 'dcim',
  model: 'rackgroup',
  slug: 'rack-groups',
  verboseName: 'rack group',
  naturalKey: ['name', 'location'],
  ordering: ['name'],
  display: (r) => r.name,
  mixins: [tree(), locatedMixin({ onDelete: 'cascade' })],
  fields: {
    name: field.string({ required: true, maxLength: 255, index: true }),
    description: field.string({ maxLength: 255 }),
    rack_count: field.count('dcim.rack', 'rack_group'),
  },
  uniqueTogether: [{ fields: ['location', 'name'] }],
  search: ['name', 'description'],
  features: ['customFields', 'notes'],
  async rules(s, w) {
    const parent = s.related('parent');
    if (!parent || !(s.create || s.touched.has('parent') || s.touched.has('location'))) return;
    if (await withinLocation(w, parent.location_id, s.values.location_id)) return;
    const [here, theirs] = await Promise.all([locationName(w, s.values.location_id), locationName(w, parent.location_id)]);
    return { location: [`Location "${here}" is not descended from parent rack group "${parent.name}" location "${theirs}".`] };
  },
});
