import { newId } from '../../../core/ids';
import type { Executor, Row } from '../../../database/db';
import { ident, inList, join, sql } from '../../../database/sql';
import { UploadedFile } from '../../../core/http/multipart';
import { unscoped } from '../../../core/resource/query/rows';
import { insertRows } from '../jobs/store';
import type { JobVariable } from '../jobs/variables';
import { fileProxyFiles, fileProxyResource } from './file-proxy.resource';

/** What a job gets for a FileVar: the file its run was given, held by a file proxy. */
export interface JobFile {
  id: string;
  name: string;
  contentType: string;
  data: Buffer;
}

/**
 * A run's validated data with each file replaced by the id of the file proxy that will hold it
 * (what the queue stores), and the files to store once the run's result exists (`storeJobFiles`).
 */
export function takeJobFiles(data: Record<string, unknown>): { data: Record<string, unknown>; files: Map<string, UploadedFile> } {
  const files = new Map<string, UploadedFile>();
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v instanceof UploadedFile) {
      const id = newId();
      files.set(id, v);
      out[k] = id;
    } else out[k] = v;
  }
  return { data: out, files };
}

/** Stores a run's files as file proxies of its result (null for a scheduled run): two statements for them all. */
export async function storeJobFiles(exec: Executor, files: Map<string, UploadedFile>, resultId: string | null, now: Date): Promise<void> {
  if (!files.size) return;
  await insertRows(exec, fileProxyResource, [...files].map(([id, f]) => ({ id, name: f.filename, uploaded_at: now, job_result_id: resultId })), now);
  const rows = [...files].map(([id, f]) => sql`(${id}, ${f.data}, ${f.contentType})`);
  await exec.execute(sql`INSERT INTO ${ident(fileProxyFiles.name)} (${ident('id')}, ${ident('data')}, ${ident('content_type')}) VALUES ${join(rows)}`);
}

/** Before a run: the FileVar values (proxy ids) become the files themselves, in one statement. */
export async function loadJobFiles(exec: Executor, variables: Record<string, JobVariable>, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  const names = Object.keys(variables).filter((k) => variables[k].type === 'FileVar' && typeof data[k] === 'string');
  if (!names.length) return data;
  const ids = names.map((k) => String(data[k]));
  const rows: Row[] = await exec.query(
    sql`SELECT p.${ident('id')}, p.${ident('name')}, f.${ident('data')}, f.${ident('content_type')} FROM ${unscoped(fileProxyResource, 'p').table} JOIN ${ident(fileProxyFiles.name)} f ON f.${ident('id')} = p.${ident('id')} WHERE ${inList(sql`p.${ident('id')}`, ids)}`,
  );
  const byId = new Map(rows.map((r) => [String(r.id), { id: String(r.id), name: String(r.name), contentType: String(r.content_type), data: Buffer.from(r.data as Uint8Array) } satisfies JobFile]));
  const out = { ...data };
  for (const k of names) out[k] = byId.get(String(data[k])) ?? null;
  return out;
}
