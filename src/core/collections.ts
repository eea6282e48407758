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

type Json = Record<string, unknown>;
const isPlainObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * `added` merged into `original` (the reference's deepmerge): objects merge key by key, anything
 * else replaces. Keys are own keys (`__proto__` included, as JSON.parse makes it), never a
 * prototype. Config contexts merge their data this way, user preferences their changes.
 */
export function deepMerge(original: Json, added: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(original)) setOwn(out, k, v);
  for (const [k, v] of Object.entries(added)) {
    const cur = Object.hasOwn(original, k) ? original[k] : undefined;
    setOwn(out, k, isPlainObject(cur) && isPlainObject(v) ? deepMerge(cur, v) : v);
  }
  return out;
}

function setOwn(o: Json, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
