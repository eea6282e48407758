import { field } from '../../core/resource/fields';

/**
 * MAC addresses as the reference stores them (netaddr's EUI-48 in `mac_unix_expanded_uppercase`
 * form, "00:1A:2B:3C:4D:5E"), from any of the forms it accepts: six groups of one or two hex
 * digits separated by ":" or "-", three groups of four separated by ".", or twelve bare digits.
 */
export function canonicalMac(value: string): string | null {
  const v = value.trim();
  let groups: string[] | null = null;
  if (/^[0-9a-f]{1,2}([:-][0-9a-f]{1,2}){5}$/i.test(v)) groups = v.split(/[:-]/).map((g) => g.padStart(2, '0'));
  else if (/^[0-9a-f]{4}(\.[0-9a-f]{4}){2}$/i.test(v)) groups = v.replace(/\./g, '').match(/../g);
  else if (/^[0-9a-f]{12}$/i.test(v)) groups = v.match(/../g);
  return groups ? groups.join(':').toUpperCase() : null;
}

export const MAC_PATTERN = /^([0-9A-F]{2}:){5}[0-9A-F]{2}$/;

/**
 * `mac_address=` filter values in any form the field takes, as stored; an unreadable one is a
 * 400 (the reference's MultiValueMACAddressFilter).
 */
export function macValues(values: unknown[], invalid: (message: string) => never): string[] {
  return values.map((v) => canonicalMac(String(v)) ?? invalid('Enter a valid MAC address.'));
}

/** A MAC address field (the reference's MACAddressCharField): any form above, stored and shown canonically, blank as null. */
export const macAddressField = () =>
  field.string({
    nullable: true,
    maxLength: 18,
    label: 'MAC Address',
    normalize: (v: string | null) => (v === null || v.trim() === '' ? null : (canonicalMac(v) ?? v)),
    validate: (v: string | null) => (v === null || MAC_PATTERN.test(v) ? undefined : `Invalid MAC address format: ${v}`),
    index: true,
  });
