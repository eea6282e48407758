import { encoderOf, NestedTexts, nestedTextsOf, representations, type Encoder, type TextSink } from '../resource/serialize/json-encoder';

/**
 * A response body with the representations it stands for (json-encoder's `asWritten`) made: for
 * whatever reads a body rather than writing it as JSON (the browsable page).
 */
export function withRepresentations(body: unknown): unknown {
  if (Array.isArray(body)) return representations(body);
  if (isPlainObject(body) && Array.isArray(body.results)) return { ...body, results: representations(body.results) };
  return body;
}

/**
 * A JSON response body as a list of byte chunks whose concatenation equals
 * `Buffer.from(JSON.stringify(value))`.
 *
 * A list of many objects is stringified one object at a time, each piece encoded straight into
 * chunks of CHUNK_BYTES: V8 builds one large JSON string out of parts, and encoding such a string
 * (1.3 MB for a page of 1,000 locations) into one fresh buffer of that size costs several
 * milliseconds more than filling a few small buffers, which the allocator serves from memory it
 * already holds instead of fresh pages. Anything else is stringified whole.
 */
export function jsonChunks(value: unknown): Buffer[] | undefined {
  if (Array.isArray(value)) return new Chunks().array(value).done();
  if (isPlainObject(value) && Array.isArray(value.results)) {
    const out = new Chunks();
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      const text = k === 'results' ? null : JSON.stringify(v);
      if (text === undefined) continue; // undefined, a function or a symbol: omitted, as JSON.stringify does
      out.text(`${first ? '{' : ','}${JSON.stringify(k)}:`);
      if (text === null) out.array(v as unknown[]);
      else out.text(text);
      first = false;
    }
    out.text(first ? '{}' : '}');
    return out.done();
  }
  const text = JSON.stringify(value);
  return text === undefined ? undefined : [Buffer.from(text, 'utf8')];
}

/** The texts of a list that carries none: every nested object written as JSON.stringify writes it. */
const NO_TEXTS = new NestedTexts();

/** The size of the buffers a long body is written into. */
export const CHUNK_BYTES = 64 * 1024;

class Chunks {
  private readonly out: Buffer[] = [];
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;

  array(items: unknown[]): this {
    this.text('[');
    // Representations of one batch come with an encoder compiled for their keys.
    const encode = encoderOf(items);
    // Representations nesting others: written in pieces (Encoder.into).
    if (encode?.into) this.into(items as Record<string, unknown>[], encode.into, nestedTextsOf(items));
    else {
      items.forEach((item, i) => {
        if (i) this.text(',');
        // In an array, what JSON.stringify cannot represent is written as null.
        this.text(encode ? encode(item as Record<string, unknown>) : (JSON.stringify(item) ?? 'null'));
      });
    }
    this.text(']');
    return this;
  }

  private into(items: Record<string, unknown>[], into: NonNullable<Encoder['into']>, texts: NestedTexts | undefined): void {
    const found = texts ?? NO_TEXTS;
    const sink: TextSink = { text: (s) => this.text(s), nested: (v) => found.text(v) };
    for (let i = 0; i < items.length; i++) {
      if (i) this.text(',');
      into(items[i], sink);
    }
  }

  text(s: string): void {
    const room = this.buf.length - this.used;
    // A UTF-16 code unit is at most 3 UTF-8 bytes; only a piece that might not fit is measured.
    if (s.length * 3 > room) {
      const bytes = Buffer.byteLength(s, 'utf8');
      if (bytes > room) {
        this.flush();
        this.buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
        this.used = 0;
      }
    }
    this.used += this.buf.write(s, this.used, 'utf8');
  }

  done(): Buffer[] {
    this.flush();
    return this.out;
  }

  private flush(): void {
    if (this.used) this.out.push(this.buf.subarray(0, this.used));
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}
