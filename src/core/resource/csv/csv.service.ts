import { Injectable, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Executor } from '../../../database/db';
import { ident, sql } from '../../../database/sql';
import type { RequestContext } from '../../context';
import type { ResourceDefinition } from '../definition';
import type { Field } from '../fields';
import { Query, parseDepth } from '../query/params';
import { storedRows } from '../query/rows';
import { orderBy } from '../query/sort';
import { ResourceService } from '../resource.service';
import { Representer } from '../serialize/representer';
import { csvCell, exportedCell, jsonCell, NO_OBJECT, NULL, rowErrors } from './csv-cells';
import { parseCsv } from './csv-import';
import { Column, csvColumns, linkedNames, naturalValues } from './csv-layout';

const CHUNK = 1000;

/**
 * CSV for every resource (spec 4.8): export of lists (whole filtered, scoped result, streamed
 * in chunks) and objects, and import by POST/PUT/PATCH with text/csv, validated whole before
 * anything is saved.
 */
@Injectable()
export class CsvService {
  constructor(private readonly service: ResourceService) {}

  private visible(ctx: RequestContext) {
    const r = new Representer(ctx, ctx.db);
    return (f: Field) => r.visible(f);
  }

  async exportList(ctx: RequestContext, def: ResourceDefinition, q: Query): Promise<StreamableFile> {
    parseDepth(q, 'GET');
    const exec = ctx.db;
    const from = await this.service.listFrom(ctx, exec, def, q);
    const idRows = await exec.query<{ id: string }>(sql`SELECT t.${ident('id')} AS id ${from} ORDER BY ${await orderBy(ctx, exec, def, q, 't')}`);
    return this.stream(ctx, def, idRows.map((r) => String(r.id)));
  }

  async exportDetail(ctx: RequestContext, def: ResourceDefinition, id: string, q: Query): Promise<StreamableFile> {
    parseDepth(q, 'GET');
    const row = await this.service.findOne(ctx, ctx.db, def, id, 'view');
    return this.stream(ctx, def, [String(row.id)]);
  }

  /**
   * CSV of records that are not a model's rows (free addresses, an identity's history): the
   * given columns, values written as in any export.
   */
  plain(model: string, columns: string[], records: Record<string, unknown>[]): StreamableFile {
    const rows = records.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? NULL : exportedCell(csvCell(r[c])))));
    return new StreamableFile(Buffer.from(stringify([columns, ...rows])), {
      type: 'text/csv; charset=UTF-8',
      disposition: `attachment; filename="netkeel_${model}_data.csv"`,
    });
  }

  private async stream(ctx: RequestContext, def: ResourceDefinition, ids: string[]): Promise<StreamableFile> {
    const exec = ctx.db;
    const columns = await csvColumns(ctx, exec, def, this.visible(ctx));
    const self = this;
    async function* lines() {
      yield stringify([columns.map((c) => c.header)]);
      for (let i = 0; i < ids.length; i += CHUNK) {
        const records = await self.records(ctx, exec, def, ids.slice(i, i + CHUNK), columns);
        yield stringify(records.map((r) => r.map(exportedCell)));
      }
    }
    return new StreamableFile(Readable.from(lines()), {
      type: 'text/csv; charset=UTF-8',
      disposition: `attachment; filename="netkeel_${def.model}_data.csv"`,
    });
  }

  private async records(ctx: RequestContext, exec: Executor, def: ResourceDefinition, ids: string[], columns: Column[]): Promise<string[][]> {
    // The ids are those of visible rows (exportList, exportDetail).
    const rows = await storedRows(exec, def, ids);
    const byId = new Map(rows.map((r) => [String(r.id), r]));
    const ordered = ids.map((id) => byId.get(id)).filter((r) => !!r);
    const nameColumns = columns.filter((c): c is Extract<Column, { kind: 'names' }> => c.kind === 'names');
    const [reps, natural, names] = await Promise.all([
      // The blocks an extension's columns are written from (`include=relationships`).
      new Representer(ctx, exec).represent(def, ordered, { depth: 0, include: new Set(columns.flatMap((c) => (c.kind === 'ext' && c.ext.represent?.include ? [c.ext.represent.include] : []))) }),
      naturalValues(ctx, exec, def, ordered, columns),
      Promise.all(nameColumns.map((c) => linkedNames(ctx, exec, def, c.field, ids))),
    ]);
    const namesOf = new Map(nameColumns.map((c, i) => [c.header, names[i]]));
    return reps.map((rep) => {
      const id = String(rep.id);
      return columns.map((c) => {
        switch (c.kind) {
          case 'natural':
          case 'generic':
            return natural.get(id)?.get(c.header) ?? NO_OBJECT;
          case 'names':
            return (namesOf.get(c.header)?.get(id) ?? []).join(',');
          case 'ext':
            return c.ext.csv!.cell(c.column, rep);
          default: {
            const v = rep[c.key];
            if (v === null || v === undefined) return NULL;
            const f = def.fields[c.key];
            // A list field (`listOf`) is comma-joined, as the reference writes lists; other JSON as JSON text.
            return f?.kind === 'scalar' && f.type === 'json' && !f.listOf ? jsonCell(v) : csvCell(v);
          }
        }
      });
    });
  }

  async importCreate(ctx: RequestContext, def: ResourceDefinition, buf: Buffer, q: Query): Promise<unknown[]> {
    const inputs = await parseCsv(ctx, def, buf);
    try {
      return (await this.service.create(ctx, def, inputs, q)) as unknown[];
    } catch (e) {
      throw rowErrors(e);
    }
  }

  async importUpdate(ctx: RequestContext, def: ResourceDefinition, buf: Buffer, mode: 'replace' | 'patch', q: Query): Promise<unknown> {
    const inputs = await parseCsv(ctx, def, buf);
    try {
      return await this.service.bulkUpdate(ctx, def, inputs, mode, q);
    } catch (e) {
      throw rowErrors(e);
    }
  }

  async firstRow(ctx: RequestContext, def: ResourceDefinition, buf: Buffer): Promise<Record<string, unknown>> {
    return (await parseCsv(ctx, def, buf))[0];
  }
}

