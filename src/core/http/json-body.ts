/**
 * A JSON response body as bytes, equal to `Buffer.from(JSON.stringify(value))`.
 *
 * A list of many objects is stringified and encoded one object at a time and the pieces joined:
 * V8 builds one large JSON string out of parts, and encoding such a string (1.3 MB for a page of
 * 1,000 locations) costs several milliseconds more than encoding its pieces, which are small flat
 * strings. Anything else is stringified whole.
 */
export function jsonBody(value: unknown): Buffer | undefined {
  if (Array.isArray(value)) return arrayBody(value);
  if (isPlainObject(value) && Array.isArray(value.results)) {
    const parts: Buffer[] = [];
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      const piece = k === 'results' ? arrayBody(v as unknown[]) : bytes(JSON.stringify(v));
      if (!piece) continue; // undefined, a function or a symbol: omitted, as JSON.stringify does
      parts.push(Buffer.from(`${first ? '{' : ','}${JSON.stringify(k)}:`), piece);
      first = false;
    }
    parts.push(Buffer.from(first ? '{}' : '}'));
    return Buffer.concat(parts);
  }
  return bytes(JSON.stringify(value));
}

function arrayBody(items: unknown[]): Buffer {
  const parts: Buffer[] = [OPEN];
  items.forEach((item, i) => {
    if (i) parts.push(COMMA);
    // In an array, what JSON.stringify cannot represent is written as null.
    parts.push(bytes(JSON.stringify(item)) ?? NULL_BYTES);
  });
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

function bytes(text: string | undefined): Buffer | undefined {
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');
const NULL_BYTES = Buffer.from('null');
