import { CustomFilter, defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { join, sql } from '../../../database/sql';
import { CHANNEL_WIDTHS, DATA_RATE_STANDARDS, FREQUENCIES, REGULATORY_DOMAINS } from '../choices';

const WIDTHS: readonly unknown[] = CHANNEL_WIDTHS.map(([v]) => v);
const typeName = (v: unknown) => (Array.isArray(v) ? 'list' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v === 'boolean' ? 'bool' : typeof v);
const shown = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * A list of integers (the reference's ListField of integers, or of integer choices), possibly empty;
 * null (the value of a profile made without it) is accepted too.
 */
function integerList(choices?: readonly unknown[]) {
  return (v: unknown): string | undefined => {
    if (!Array.isArray(v)) return `Expected a list of items but got type "${typeName(v)}".`;
    for (const item of v) {
      if (typeof item !== 'number' || !Number.isInteger(item)) return choices ? `${shown(item)} is not a valid choice.` : 'A valid integer is required.';
      if (choices && !choices.includes(item)) return `${item} is not a valid choice.`;
      if (item < -2147483648 || item > 2147483647) return 'A valid integer is required.';
    }
    return undefined;
  };
}

/**
 * The items as the reference's fields take them: a whole-number string is the number (DRF's
 * IntegerField), and a choice may come as `{"value": 20}` (Nautobot's ChoiceField).
 */
function integerItems(choices: boolean) {
  const item = (x: unknown): unknown => {
    if (choices && x && typeof x === 'object' && !Array.isArray(x) && 'value' in x) return item((x as { value: unknown }).value);
    return typeof x === 'string' && /^\s*-?\d{1,10}\s*$/.test(x) ? Number(x) : x;
  };
  return (v: unknown) => (Array.isArray(v) ? v.map(item) : v);
}

/** `channel_width=40`: profiles whose channel widths contain the number (the reference's NumericArrayFilter). */
const channelWidthFilter: CustomFilter = {
  compile: (values, _l, h) => {
    const bad = values.find((v) => !/^-?\d{1,10}$/.test(String(v)));
    if (bad !== undefined) h.invalid('Enter a number.');
    return sql`(${join(values.map((v) => h.exec.dialect.jsonArrayHas(h.col('channel_width'), Number(v))), ' OR ')})`;
  },
};

/** A data rate an access point radio may use: one per standard and rate. */
export const supportedDataRateResource = defineResource({
  app: 'wireless',
  model: 'supporteddatarate',
  slug: 'supported-data-rates',
  verboseName: 'supported data rate',
  naturalKey: ['standard', 'rate'],
  ordering: ['standard', 'rate'],
  display: (r) => `${String(r.standard ?? '')}: ${String(r.rate ?? '')} Kbps`,
  fields: {
    standard: field.choice(DATA_RATE_STANDARDS, { required: true, maxLength: 255 }),
    rate: field.integer({ required: true, minValue: 0, label: 'Rate (Kbps)' }),
    mcs_index: field.integer({
      nullable: true,
      label: 'Modulation and Coding Scheme (MCS) Index',
      help: 'The Modulation and Coding Scheme (MCS) index is a value used in wireless communications to define the modulation type, coding rate, and number of spatial streams used in a transmission.',
    }),
  },
  uniqueTogether: [{ fields: ['standard', 'rate'] }],
  search: ['rate', 'standard', 'mcs_index'],
  features: ['tags', 'customFields', 'notes'],
});

/**
 * Settings an access point radio takes: band, transmit and receive power, channel widths and
 * channels, regulatory domain and the data rates it supports. Controller managed device groups
 * take profiles through controller-managed-device-group-radio-profile-assignments.
 */
export const radioProfileResource = defineResource({
  app: 'wireless',
  model: 'radioprofile',
  slug: 'radio-profiles',
  verboseName: 'radio profile',
  mixins: [named(255)],
  fields: {
    frequency: field.choice(FREQUENCIES, { maxLength: 255 }),
    tx_power_min: field.integer({ nullable: true, label: 'Transmit Power Minimum' }),
    tx_power_max: field.integer({ nullable: true, label: 'Transmit Power Maximum' }),
    channel_width: field.json({ nullable: true, listOf: { type: 'integer', choices: CHANNEL_WIDTHS }, normalize: integerItems(true), validate: integerList(WIDTHS) }),
    allowed_channel_list: field.json({ nullable: true, listOf: { type: 'integer' }, normalize: integerItems(false), validate: integerList(), help: 'Comma-separated list of allowed channel numbers for this radio profile.' }),
    supported_data_rates: field.manyToMany(
      () => supportedDataRateResource,
      { table: 'wireless_radioprofile_supported_data_rates', source: 'radioprofile_id', target: 'supporteddatarate_id' },
      { writable: true, relatedName: 'radio_profiles' },
    ),
    regulatory_domain: field.choice(REGULATORY_DOMAINS, { required: true, maxLength: 255 }),
    rx_power_min: field.integer({ nullable: true, label: 'Receive Power Minimum' }),
  },
  search: ['regulatory_domain', 'frequency'],
  filters: { channel_width: channelWidthFilter },
  features: ['tags', 'customFields', 'notes'],
});
