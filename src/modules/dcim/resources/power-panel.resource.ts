import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { POWER_PANEL_TYPES, POWER_PATHS } from '../choices';
import { locatedMixin, locationName, withinLocation } from '../mixins';
import { rackGroupResource } from './rack-group.resource';

/** A distribution point for electrical power in a location (a data centre's remote power panel), optionally in a rack group of that location or above it. */
export const powerPanelResource = defineResource({
  app: 'dcim',
  model: 'powerpanel',
  slug: 'power-panels',
  verboseName: 'power panel',
  naturalKey: ['name', 'location'],
  ordering: ['location', 'name'],
  display: (r) => r.name,
  mixins: [locatedMixin()],
  fields: {
    rack_group: field.foreignKey(() => rackGroupResource, { nullable: true, onDelete: 'protect', tree: true }),
    name: field.string({ required: true, maxLength: 255, index: true }),
    panel_type: field.choice(POWER_PANEL_TYPES, { maxLength: 30 }),
    breaker_position_count: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, help: 'Total number of breaker positions in the panel (e.g., 42)' }),
    power_path: field.choice(POWER_PATHS, { maxLength: 20, help: 'Physical power distribution redundancy path.' }),
    power_feed_count: field.count('dcim.powerfeed', 'power_panel'),
  },
  uniqueTogether: [{ fields: ['location', 'name'] }],
  search: ['name'],
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w) {
    const group = s.related('rack_group');
    if (!group || !(s.create || s.touched.has('rack_group') || s.touched.has('location'))) return;
    if (await withinLocation(w, group.location_id, s.values.location_id)) return;
    const [theirs, here] = await Promise.all([locationName(w, group.location_id), locationName(w, s.values.location_id)]);
    return { rack_group: [`Rack group "${group.name}" belongs to a location ("${theirs}") that does not contain "${here}".`] };
  },
});
