/**
 * Natural-sort key: every run of digits left-padded to 8 places, so "site9" sorts before
 * "site10" by plain string comparison (Nautobot's `naturalize`).
 */
export function naturalize(value: string, maxLength: number, integerPlaces = 8): string {
  if (!value) return value;
  return value
    .split(/(\d+)/)
    .map((seg) => (/^\d+$/.test(seg) ? seg.padStart(integerPlaces, '0') : seg))
    .join('')
    .slice(0, maxLength);
}
