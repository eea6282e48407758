/**
 * Appends `item` to the list kept under `key`, creating the list for a new key. The list grows in
 * place: spreading it into a new one per item would copy it each time (quadratic in a bulk
 * write's or an export's size).
 */
export function append<K, T>(map: Map<K, T[]>, key: K, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}
