import { defineResource, WriteContext, WriteState } from '../../../core/resource/definition';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { ident, sql } from '../../../database/sql';
import { statusMixin } from '../../extras/mixins';
import { cableTermination, pathEndpoint } from '../cabling/terminations';
import { POWER_FEED_BREAKER_POLES, POWER_FEED_PHASES, POWER_FEED_STATUSES, POWER_FEED_SUPPLIES, POWER_FEED_TYPES, POWER_PATHS } from '../choices';
import { locationName, withinLocation } from '../mixins';
import { powerPanelResource } from './power-panel.resource';
import { rackResource } from './rack.resource';

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Watts a feed may deliver: |voltage| x amperage x max_utilization %, times 1.732 for three-phase (the reference's rounding). */
export function availablePower(v: Record<string, unknown>): number {
  const kva = Math.abs(Number(v.voltage)) * Number(v.amperage) * (Number(v.max_utilization) / 100);
  return roundHalfEven(v.phase === 'three-phase' ? kva * 1.732 : kva);
}

/** Breaker positions a feed occupies: every other position from its first, one per pole. */
const occupied = (position: unknown, poles: unknown): number[] =>
  position === null || position === undefined || !poles ? [] : Array.from({ length: Number(poles) }, (_, i) => Number(position) + 2 * i);

/** An electrical circuit from a power panel, optionally to a rack of the panel's location hierarchy; a cable joins it to a device's power port. */
export const powerFeedResource = defineResource({
  app: 'dcim',
  model: 'powerfeed',
  slug: 'power-feeds',
  verboseName: 'power feed',
  naturalKey: ['name', 'power_panel'],
  ordering: ['power_panel', 'breaker_position', 'name'],
  display: (r) => r.name,
  mixins: [statusMixin({ defaults: POWER_FEED_STATUSES }), cableTermination(), pathEndpoint()],
  fields: {
    power_panel: field.foreignKey(() => powerPanelResource, { required: true, onDelete: 'protect', help: 'Source panel that originates this power feed' }),
    destination_panel: field.foreignKey(() => powerPanelResource, { nullable: true, onDelete: 'protect', relatedName: 'feeders', help: 'Destination panel that receives power from this feed' }),
    rack: field.foreignKey(() => rackResource, { nullable: true, onDelete: 'protect' }),
    name: field.string({ required: true, maxLength: 255 }),
    type: field.choice(POWER_FEED_TYPES, { default: 'primary', maxLength: 50 }),
    power_path: field.choice(POWER_PATHS, { maxLength: 20, help: 'Physical power distribution redundancy path.' }),
    supply: field.choice(POWER_FEED_SUPPLIES, { default: 'ac', maxLength: 50 }),
    phase: field.choice(POWER_FEED_PHASES, { default: 'single-phase', maxLength: 50 }),
    voltage: field.integer({ default: 120, minValue: -32768, maxValue: 32767, validate: (v: number) => (v === 0 ? 'This value may not be 0.' : undefined) }),
    amperage: field.integer({ default: 20, minValue: 1, maxValue: 32767 }),
    max_utilization: field.integer({ default: 80, minValue: 1, maxValue: 100, help: 'Maximum permissible draw (percentage)' }),
    breaker_position: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, help: 'Starting circuit breaker position in panel' }),
    breaker_pole_count: field.choice(POWER_FEED_BREAKER_POLES, { nullable: true, help: 'Number of breaker poles' }),
    available_power: field.integer({ readOnly: true, default: 0, minValue: 0, maxValue: 2147483647 }),
    comments: field.text(),
  },
  uniqueTogether: [{ fields: ['power_panel', 'name'] }, { fields: ['power_panel', 'breaker_position'] }],
  search: ['name', 'comments'],
  features: ['tags', 'customFields', 'notes'],
  async rules(s, w) {
    const errors: FieldErrors = {};
    const panel = s.related('power_panel');
    const rack = s.related('rack');
    if (rack && panel && !(await withinLocation(w, panel.location_id, rack.location_id)) && !(await withinLocation(w, rack.location_id, panel.location_id))) {
      const [rackLocation, panelLocation] = await Promise.all([locationName(w, rack.location_id), locationName(w, panel.location_id)]);
      const rackName = rack.facility_id ? `${rack.name} (${rack.facility_id})` : rack.name;
      errors.rack = [`Rack "${rackName}" (${rackLocation}) and power panel "${panel.name}" (${panelLocation}) are not in the same location hierarchy.`];
      return errors;
    }
    if (Number(s.values.voltage) < 0 && s.values.supply === 'ac') return { voltage: ['Voltage cannot be negative for AC supply'] };
    if (s.values.destination_panel_id && String(s.values.destination_panel_id) === String(s.values.power_panel_id)) {
      return { destination_panel: ['A power feed cannot connect a panel to itself'] };
    }
    if (panel && s.values.breaker_position !== null && s.values.breaker_position !== undefined) return breakerErrors(s, panel, w);
    return errors;
  },
  beforeSave(states) {
    for (const s of states) {
      if (s.values.breaker_position !== null && s.values.breaker_position !== undefined && s.values.breaker_pole_count === null) s.values.breaker_pole_count = 1;
      s.values.available_power = availablePower(s.values);
    }
  },
});

/** The breakers a feed takes must fit in its panel and be free of the panel's other feeds (the reference's messages). */
async function breakerErrors(s: WriteState, panel: Record<string, unknown>, w: WriteContext): Promise<FieldErrors | void> {
  const position = Number(s.values.breaker_position);
  const poles = s.values.breaker_pole_count ?? 1;
  const mine = occupied(position, poles);
  const capacity = panel.breaker_position_count;
  if (capacity !== null && capacity !== undefined && mine.length && Math.max(...mine) > Number(capacity)) {
    return {
      breaker_position: [
        `Breaker configuration starting at position ${position} with ${poles} poles would occupy positions [${mine.join(', ')}], but panel only has ${capacity} breaker positions`,
      ],
    };
  }
  const others = await w.exec.query<{ id: string; name: string; breaker_position: number; breaker_pole_count: number }>(
    sql`SELECT ${ident('id')}, ${ident('name')}, ${ident('breaker_position')}, ${ident('breaker_pole_count')} FROM ${ident('dcim_powerfeed')} WHERE ${ident('power_panel_id')} = ${panel.id} AND ${ident('breaker_position')} IS NOT NULL AND ${ident('breaker_pole_count')} IS NOT NULL AND ${ident('id')} <> ${s.values.id}`,
  );
  for (const feed of others) {
    const theirs = occupied(feed.breaker_position, feed.breaker_pole_count);
    if (theirs.some((p) => mine.includes(p))) {
      return { breaker_position: [`Breaker position ${position} conflicts with feed "${feed.name}" (occupies ${[...theirs].sort((a, b) => a - b).join(', ')})`] };
    }
  }
}
