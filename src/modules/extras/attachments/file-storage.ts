import { StreamableFile } from '@nestjs/common';
import { ApiResponse } from '../../../core/http/api-response';
import type { Executor, Row } from '../../../database/db';
import { column, defineTable, TableSchema } from '../../../database/schema/schema';
import { ident, inList, join, sql } from '../../../database/sql';
import { UploadedFile } from '../../../core/http/multipart';
import type { WriteState } from '../../../core/resource/definition';

/**
 * Uploaded files are kept in the database, each in a side table of its owner's
 * (`<owner table>_file`: the owner's id, the bytes as bytea / LONGBLOB, the content type), so that
 * every instance sharing the database serves them and a job run on any instance reads them, the
 * owner's row (read whole by the engine) carries no bytes, and the database deletes a file with
 * its owner, by whatever path the owner goes (its parent's cascade, a job result's).
 */
export function fileTable(owner: string): TableSchema {
  return defineTable({
    name: `${owner}_file`,
    columns: { id: column.uuid(), data: column.blob(), content_type: column.string(255) },
    primaryKey: ['id'],
    foreignKeys: { id: [owner, 'cascade'] },
  });
}

/** The key of a write's values under which a parsed upload waits for `saveFiles` (no column: never stored in the row). */
export const UPLOAD = '__upload';

export const NOT_A_FILE = 'The submitted data was not a file. Check the encoding type on the form.';
export const EMPTY_FILE = 'The submitted file is empty.';

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w.+-]+=[^;,]*)*;base64,([A-Za-z0-9+/=\s]*)$/;

/**
 * A file given in a request: a multipart part (the reference's way), or in a JSON or CSV body a
 * `data:` URI in base64 (a netkeel extension: bulk creates, CSV and clients without multipart).
 * Returns the file or an error message.
 */
export function toUpload(value: unknown, name = 'upload'): UploadedFile | string {
  let file: UploadedFile;
  if (value instanceof UploadedFile) file = value;
  else if (typeof value === 'string' && DATA_URI.test(value)) {
    const [, type, b64] = DATA_URI.exec(value)!;
    file = new UploadedFile(name, type ?? 'application/octet-stream', Buffer.from(b64.replace(/\s+/g, ''), 'base64'));
  } else return NOT_A_FILE;
  if (file.data.length === 0) return EMPTY_FILE;
  return file;
}

/** The error for a file over the size limit (FILE_UPLOAD_MAX_SIZE), or undefined. */
export function sizeError(file: UploadedFile, limit: number): string | undefined {
  return file.data.length > limit ? `Ensure this file has at most ${limit} bytes (it has ${file.data.length}).` : undefined;
}

/** After a write: stores the uploads of the written objects (one statement to clear, one to insert, for the batch). */
export async function saveFiles(exec: Executor, table: TableSchema, states: readonly WriteState[], ids: readonly string[]): Promise<void> {
  const files = ids.map((id, i) => [id, states[i].values[UPLOAD]] as const).filter((e): e is readonly [string, UploadedFile] => e[1] instanceof UploadedFile);
  if (!files.length) return;
  await exec.execute(sql`DELETE FROM ${ident(table.name)} WHERE ${inList(ident('id'), files.map(([id]) => id))}`);
  const rows = files.map(([id, f]) => sql`(${id}, ${f.data}, ${f.contentType})`);
  await exec.execute(sql`INSERT INTO ${ident(table.name)} (${ident('id')}, ${ident('data')}, ${ident('content_type')}) VALUES ${join(rows)}`);
}

/** Reads one owner's file (the owner already read within the requester's scope), or null. */
export async function readFile(exec: Executor, table: TableSchema, id: string): Promise<{ data: Buffer; contentType: string } | null> {
  const [row]: Row[] = await exec.query(sql`SELECT ${ident('data')}, ${ident('content_type')} FROM ${ident(table.name)} WHERE ${ident('id')} = ${id}`);
  return row ? { data: Buffer.from(row.data as Uint8Array), contentType: String(row.content_type) } : null;
}

/** `attachment; filename=...` with an RFC 5987 form for names that are not plain ASCII. */
function disposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"${ascii === filename ? '' : `; filename*=UTF-8''${encodeURIComponent(filename)}`}`;
}

/** A stored file as a response: its type, its name, and nosniff (a browser must not guess another type). */
export function fileResponse(file: { data: Buffer; contentType: string }, filename: string, kind: 'inline' | 'attachment'): ApiResponse {
  return new ApiResponse(200, new StreamableFile(file.data), {
    'Content-Type': file.contentType,
    'Content-Length': String(file.data.length),
    'Content-Disposition': disposition(kind, filename),
    'X-Content-Type-Options': 'nosniff',
  });
}
