import { BadRequestError } from '../resource/errors';

/** A file part of a multipart/form-data body (an image attachment's `image`, a job's file variable). */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly contentType: string,
    readonly data: Buffer,
  ) {}
}

export type FormValue = string | UploadedFile;

const parseError = (why: string) => new BadRequestError(`Multipart form parse error - ${why}`);

/** A header's parameter (`name="x"`, `filename*=UTF-8''x`), unquoted. */
function param(header: string, key: string): string | undefined {
  const ext = new RegExp(`;\\s*${key}\\*\\s*=\\s*([^;]+)`, 'i').exec(header);
  if (ext) {
    const m = /^([\w-]+)'[^']*'(.*)$/.exec(ext[1].trim());
    try {
      if (m) return decodeURIComponent(m[2]);
    } catch {
      /* fall through to the plain parameter */
    }
  }
  const m = new RegExp(`;\\s*${key}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
}

/**
 * Parses a multipart/form-data body already read into memory (within MAX_BODY_SIZE): each part's
 * field name to its text, or to an UploadedFile where the part names a filename. A name given
 * twice keeps its last value (Django's `QueryDict.dict()`). A body that is not well formed is a 400.
 */
export function parseMultipart(raw: Buffer, contentType: string): Record<string, FormValue> {
  const boundary = param(`;${contentType.slice(contentType.indexOf(';') + 1)}`, 'boundary');
  if (!boundary) throw parseError('Invalid boundary in multipart: None');
  const delimiter = Buffer.from(`--${boundary}`);
  const out: Record<string, FormValue> = Object.create(null);
  let pos = raw.indexOf(delimiter);
  if (pos < 0) throw parseError('no part in the body');
  for (;;) {
    pos += delimiter.length;
    if (raw.subarray(pos, pos + 2).toString() === '--') break;
    if (raw.subarray(pos, pos + 2).toString() !== '\r\n') throw parseError('a boundary not followed by a line break');
    pos += 2;
    const headerEnd = raw.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) throw parseError('a part without an end of headers');
    const headers = new Map<string, string>();
    for (const line of raw.subarray(pos, headerEnd).toString('utf8').split('\r\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
    }
    const next = raw.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw parseError('a part without a closing boundary');
    const body = raw.subarray(headerEnd + 4, next);
    const disposition = headers.get('content-disposition') ?? '';
    const name = param(disposition, 'name');
    if (!/^form-data/i.test(disposition) || name === undefined) throw parseError('a part without a form-data name');
    const filename = param(disposition, 'filename');
    out[name] =
      filename !== undefined
        ? new UploadedFile(filename.replace(/^.*[\\/]/, ''), (headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase(), Buffer.from(body))
        : body.toString('utf8');
    pos = next + 2;
  }
  return out;
}
