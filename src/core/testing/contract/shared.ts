/** Helpers the contract's sections share. */
export type Obj = Record<string, any>;

export const STANDARD = ['id', 'object_type', 'display', 'url', 'natural_slug'];
export const isRef = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).sort().join() === 'id,object_type,url';

/** Compares what was written with what is read back, for the keys written. */
export function expectMatches(body: Obj, input: Obj, writeOnly: string[] = []): void {
  for (const [k, v] of Object.entries(input)) {
    if (k === 'custom_fields' || writeOnly.includes(k)) continue;
    const got = body[k];
    if (v === null || (v === '' && got === null)) expect(got).toBeNull(); // a blank choice reads as null
    else if (Array.isArray(v)) expect(Array.isArray(got) ? got.length : -1).toBe(v.length);
    else if (typeof v === 'object') expect(got).not.toBeUndefined();
    else if (got && typeof got === 'object' && 'value' in got) expect(String(got.value)).toBe(String(v));
    else if (got && typeof got === 'object' && 'id' in got) expect(typeof got.id).toBe('string');
    else if (typeof got === 'string' && typeof v === 'number') expect(Number(got)).toBe(v);
    else if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v)) expect(new Date(got).getTime()).toBe(new Date(v).getTime());
    else expect(got).toEqual(v);
  }
}

/** A representation without what legitimately differs between two reads (opt-in blocks that write responses always carry). */
export const stripWith = (extra: string[]) => (o: Obj) => {
  const rest = { ...o };
  for (const k of ['last_updated', 'computed_fields', 'relationships', 'config_context', ...extra]) delete rest[k];
  return rest;
};

