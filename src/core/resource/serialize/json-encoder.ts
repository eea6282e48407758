/**
 * JSON text for a batch of representations that share their keys, faster than JSON.stringify.
 *
 * Every representation of a batch has the same keys in the same order (Representer), and the
 * representer knows what each key can hold: a string it built itself from parts that need no
 * escaping (ids of typed uuid columns, URLs, timestamps), a reference `{id, object_type, url}`,
 * or anything. An encoder compiled for those keys writes the constant parts (the keys, the object
 * types) as they are and skips the escape check where nothing can need it: about twice as fast as
 * JSON.stringify on a page of addresses or locations. Anything else goes through JSON.stringify,
 * value by value, so the text is the same. A reference's text is kept with the reference it was
 * made for, and written again for the same object: references are never changed once made.
 *
 * A list of representations carries its encoder under JSON_ENCODER (json-body reads it); a list
 * made from it (map, filter, spread) does not, and is stringified as usual. With
 * NETKEEL_VERIFY_JSON_ENCODER=1 (the test suite sets it) every object encoded is compared with
 * JSON.stringify's text, and a difference is an error.
 */

/** What a key of a representation can hold. */
export type ValueKind =
  /** A string (or null) that needs no escaping: built by netkeel from such parts. */
  | 'plain'
  /** null, or a reference built by the representer: its id and url are plain, its type is `ref`. */
  | { ref: string }
  /**
   * null, or an object the representer nested into the response (a related object at depth > 0,
   * or its reference), made for this one response and never changed: its text written once
   * (NestedTexts), and the text of the last one written for the key kept with it, as for
   * references (a page of 1,000 locations shows one location type and status a thousand times).
   */
  | 'nested'
  /** Anything JSON.stringify accepts. */
  | 'any';

/** Where an encoder's `into` writes a representation, piece by piece (a response body's buffers). */
export interface TextSink {
  text(s: string): void;
  /** The JSON text of an object a 'nested' key holds (NestedTexts.text). */
  nested(v: object): string;
}

/**
 * Encodes one representation of a batch. `into`, where the batch nests other representations:
 * the same JSON written into a sink in pieces, each nested object's text (as the sink has it)
 * a piece of its own (see `build`).
 */
export type Encoder = ((item: Record<string, unknown>) => string) & { into?: (item: Record<string, unknown>, out: TextSink) => void };

/** Where a list of representations keeps the encoder of its items. */
export const JSON_ENCODER = Symbol('netkeel.jsonEncoder');

const VERIFY = process.env.NETKEEL_VERIFY_JSON_ENCODER === '1';

/** Characters JSON.stringify would escape, and surrogates (lone ones are escaped too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** True when `s` is written in JSON as itself between quotes. */
export function isPlain(s: string): boolean {
  return !NEEDS_ESCAPE.test(s);
}

function str(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** The JSON text of each constant (see `constant`). */
const constantText = new WeakMap<object, string>();

/**
 * A frozen object of plain values that representations share (a choice's `{value, label}`), its
 * JSON text computed once: encoders write that text instead of stringifying it again.
 */
export function constant<T extends Record<string, string | number | boolean | null>>(o: T): Readonly<T> {
  Object.freeze(o);
  constantText.set(o, JSON.stringify(o));
  return o;
}

/**
 * A value many representations of a response share (a merged config context that every device
 * with the same contexts shows), frozen, its JSON text computed once on first use here: encoders
 * write that text instead of stringifying it again for each object. Whoever makes it must not
 * change what it holds afterwards.
 */
export function shared<T extends object>(o: T): Readonly<T> {
  if (!constantText.has(o)) {
    Object.freeze(o);
    constantText.set(o, JSON.stringify(o));
  }
  return o;
}

/**
 * The JSON texts of the objects a response nests (related objects at depth > 0, made for this
 * response and never changed afterwards), each written once, by the encoder of its batch, when
 * its batch is made (`add`), and found again by its id and identity as the response is written
 * (a 'nested' key's value, Encoder.into): a page of 1,000 locations at depth 1 shows one location
 * type a thousand times and each of 500 tenants twice.
 */
export class NestedTexts {
  private readonly byId = new Map<string, { o: object; text: string }>();

  /** Writes the objects of a batch (`encode`: the batch's encoder; JSON.stringify without one). */
  add(objects: Iterable<Record<string, unknown>>, encode: Encoder | undefined): void {
    let piece = '';
    const sink: TextSink = { text: (s) => void (piece += s), nested: (v) => this.text(v) };
    for (const o of objects) {
      const id = o.id;
      if (typeof id !== 'string' || this.byId.has(id)) continue; // another object of that id: written when met
      let text: string;
      if (encode?.into) {
        piece = '';
        encode.into(o, sink);
        text = piece;
      } else text = encode ? encode(o) : JSON.stringify(o);
      this.byId.set(id, { o, text: flat(text) });
    }
  }

  /** An object written before (kept between requests: KeptNested), with its text. */
  keep(kept: { o: Record<string, unknown>; text: string }): void {
    const id = kept.o.id;
    if (typeof id === 'string' && !this.byId.has(id)) this.byId.set(id, kept);
  }

  /** The text `add` or `keep` gave `o`, if they did. */
  keptText(o: object): string | undefined {
    const id = (o as { id?: unknown }).id;
    const kept = typeof id === 'string' ? this.byId.get(id) : undefined;
    return kept !== undefined && kept.o === o ? kept.text : undefined;
  }

  /** The JSON text of a nested object (or of any other object: a reference to a hidden one). */
  text(v: object): string {
    const id = (v as { id?: unknown }).id;
    const kept = typeof id === 'string' ? this.byId.get(id) : undefined;
    return kept !== undefined && kept.o === v ? kept.text : (any(v) as string);
  }
}

/** The texts of the objects a list of representations nests, kept with the list (json-body reads them). */
const NESTED_TEXTS = Symbol('netkeel.nestedTexts');

/** The nested objects' texts a list carries, if any (see `withEncoder`). */
export function nestedTextsOf(list: unknown[]): NestedTexts | undefined {
  return (list as { [NESTED_TEXTS]?: NestedTexts })[NESTED_TEXTS];
}

/** A 'nested' key's object written by the string form of an encoder (no NestedTexts at hand): as JSON.stringify writes it. */
function nested(v: object): string {
  return any(v) as string;
}

/** A value as JSON.stringify writes it inside an object; undefined: the key is left out. */
function any(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return str(v);
    case 'number':
      return Number.isFinite(v) ? `${v}` : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default: {
      if (v === null) return 'null';
      const text = constantText.get(v as object);
      if (text !== undefined) return text;
      // Empty lists and objects (no tags, no custom fields) are the common case.
      if (Array.isArray(v)) return v.length ? JSON.stringify(v) : '[]';
      return isEmptyPlainObject(v) ? '{}' : JSON.stringify(v);
    }
  }
}

function isEmptyPlainObject(v: unknown): boolean {
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const _ in v as object) return false;
  return true;
}

function plain(v: unknown): string | undefined {
  return typeof v === 'string' ? `"${v}"` : any(v);
}

/** Where `flat` stores what it read, so that no compiler drops the read. */
let flatSink = 0;

/**
 * The same string, made flat (one run of characters) where V8 holds it as a tree of the pieces it
 * was concatenated from: reading a character flattens such a string in place. A kept text (a
 * reference's or nested object's, written again for each object of a page that shows it) is
 * copied into every object's text that includes it, and copying a tree means walking all of its
 * pieces again each time: a page of 1,000 locations at depth 1 (a location type and a status
 * nested in each) spent ~1 ms more writing its text into buffers than with the kept texts flat.
 */
function flat(s: string): string {
  flatSink = s.charCodeAt(0);
  return s;
}

/** Compiled encoders by their keys and kinds: the same ones give the same (warmed-up) function. */
const compiled = new Map<string, Encoder>();
const MAX_COMPILED = 1000;

/** An encoder for objects with exactly these keys in this order (the first always present). */
export function compileEncoder(keys: string[], kinds: Record<string, ValueKind>): Encoder | undefined {
  if (!keys.length) return undefined;
  // Looked up by a short signature first: building the source costs more than a request's worth
  // of small pages can spare.
  let signature = '';
  for (const key of keys) {
    const kind = kinds[key] ?? 'any';
    signature += `${key}\u0000${typeof kind === 'object' ? `ref ${kind.ref}` : kind}\u0000`;
  }
  let encode = compiled.get(signature);
  if (!encode) {
    encode = build(keys, kinds);
    if (VERIFY) encode = verified(encode);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(signature, encode);
  }
  return encode;
}

/** A kept text written again: made flat the first time (most are written once: not worth it). */
const reused = (i: number) => `(f${i} ? t${i} : (f${i} = true, flat(t${i})))`;

function build(keys: string[], kinds: Record<string, ValueKind>): Encoder {
  const memos: string[] = [];
  const parts = keys.map((key, i) => {
    const kind = kinds[key] ?? 'any';
    const value = `o[${JSON.stringify(key)}]`;
    const name = JSON.stringify(key);
    const prefix = (i ? ',' : '{') + name + ':';
    if (i === 0) return `${JSON.stringify(prefix)} + (${kind === 'plain' ? 'plain' : 'any'}(${value}) ?? 'null')`;
    if (kind === 'plain') return `(typeof (v = ${value}) === 'string' ? ${JSON.stringify(`${prefix}"`)} + v + '"' : (v = any(v)) === undefined ? '' : ${JSON.stringify(prefix)} + v)`;
    if (typeof kind === 'object' && isPlain(kind.ref)) {
      // The text of the last reference written for this key, kept with it: a page's objects
      // mostly share theirs (the representer gives one object per related object).
      const type = JSON.stringify(`","object_type":"${kind.ref}","url":"`);
      const other = `(v = any(v)) === undefined ? '' : ${JSON.stringify(prefix)} + v`;
      const text = `${JSON.stringify(`${prefix}{"id":"`)} + v.id + ${type} + v.url + '"}'`;
      memos.push(`m${i}`, `t${i}`, `f${i}`);
      return `((v = ${value}) !== null && typeof v === 'object' ? (v === m${i} ? ${reused(i)} : (t${i} = ${text}, m${i} = v, f${i} = false, t${i})) : ${other})`;
    }
    if (kind === 'nested') {
      // A value that is not an object (null; none other is expected) is written as 'any' writes it.
      memos.push(`m${i}`, `t${i}`, `f${i}`);
      return `((v = ${value}) !== null && typeof v === 'object' ? (v === m${i} ? ${reused(i)} : (t${i} = ${JSON.stringify(prefix)} + nested(v), m${i} = v, f${i} = false, t${i})) : (v = any(v)) === undefined ? '' : ${JSON.stringify(prefix)} + v)`;
    }
    return `((v = any(${value})) === undefined ? '' : ${JSON.stringify(prefix)} + v)`;
  });
  const state = memos.length ? `let ${memos.join(', ')};` : '';
  // The form that writes into a sink, where some key nests objects: the text up to each nested
  // object, then that object's text as the sink has it (written once, flat: NestedTexts; the
  // last one's kept for the key), each a piece of its own. Joined into the object's text, a
  // related object's text (a location type's, shown by every location of a page at depth 1) was
  // copied into every referring object's text when V8 made that text flat to encode it as UTF-8:
  // ~1 MB more to allocate and copy per page.
  const intoParts = keys.map((key, i) => {
    if ((kinds[key] ?? 'any') !== 'nested' || i === 0) return `s += ${parts[i]};`;
    const prefix = JSON.stringify(`,${JSON.stringify(key)}:`);
    return `if ((v = o[${JSON.stringify(key)}]) !== null && typeof v === 'object') { out.text(s + ${prefix}); out.text(v === n${i} ? b${i} : (n${i} = v, b${i} = out.nested(v))); s = ''; } else s += (v = any(v)) === undefined ? '' : ${prefix} + v;`;
  });
  const intoState = keys.flatMap((key, i) => (i && kinds[key] === 'nested' ? [`n${i}`, `b${i}`] : []));
  const into = intoState.length ? `encode.into = function into(o, out) { let v, s = ''; ${intoParts.join(' ')} out.text(s + '}'); };` : '';
  return new Function(
    'plain',
    'any',
    'nested',
    'flat',
    `${state} ${intoState.length ? `let ${intoState.join(', ')};` : ''} function encode(o) { let v; return ${parts.join(' + ')} + '}'; } ${into} return encode;`,
  )(plain, any, nested, flat) as Encoder;
}

function verified(encode: Encoder): Encoder {
  const check = (text: string, item: Record<string, unknown>) => {
    const expected = JSON.stringify(item);
    if (text !== expected) throw new Error(`JSON encoder differs from JSON.stringify:\n${text}\n${expected}`);
    return text;
  };
  const out: Encoder = (item) => check(encode(item), item);
  const into = encode.into;
  if (into) {
    out.into = (item, sink) => {
      let text = '';
      into(item, { text: (s) => void (text += s), nested: (v) => sink.nested(v) });
      sink.text(check(text, item));
    };
  }
  return out;
}

/** Where a list of representations made as it is written keeps what makes them (see `asWritten`). */
const AS_WRITTEN = Symbol('netkeel.asWritten');

interface AsWritten {
  make: (source: never) => Record<string, unknown>;
  encode: Encoder;
}

/**
 * A list that stands for the representations of `sources` (rows), each made from its source only
 * as the list is written (json-body: made, encoded, written, and dropped at once), for a response
 * body that is only written. A page's representations then die young, one at a time, instead of
 * all living until the last is written: every collection of V8's young generation meanwhile copied
 * all of those made so far (3-12 % of a 1,000-object page's server CPU). The list holds the sources;
 * anything else that reads it must take `representations(list)`.
 */
export function asWritten<S extends object>(sources: S[], make: (source: S) => Record<string, unknown>, encode: Encoder, texts?: NestedTexts): Record<string, unknown>[] {
  const list = sources.slice() as unknown as Record<string, unknown>[];
  Object.defineProperty(list, AS_WRITTEN, { value: { make, encode } satisfies AsWritten });
  const written: Encoder = (source) => encode(make(source as unknown as S));
  const into = encode.into;
  if (into) written.into = (source, out) => into(make(source as unknown as S), out);
  return withEncoder(list, written, texts);
}

/** The representations a list stands for: those of a list made `asWritten`, made now (with their encoder); any other list as it is. */
export function representations<T>(list: T[]): T[] {
  const deferred = (list as { [AS_WRITTEN]?: AsWritten })[AS_WRITTEN];
  return deferred ? (withEncoder(list.map((s) => deferred.make(s as never)), deferred.encode, nestedTextsOf(list)) as T[]) : list;
}

/**
 * Marks a list of representations with the encoder of its items and the texts of the objects
 * they nest (kept off its enumerable keys).
 */
export function withEncoder<T extends object[]>(list: T, encode: Encoder | undefined, texts?: NestedTexts): T {
  if (encode) Object.defineProperty(list, JSON_ENCODER, { value: encode });
  if (encode && texts) Object.defineProperty(list, NESTED_TEXTS, { value: texts });
  return list;
}

/** The encoder a list carries, if any. */
export function encoderOf(list: unknown[]): Encoder | undefined {
  return (list as { [JSON_ENCODER]?: Encoder })[JSON_ENCODER];
}
