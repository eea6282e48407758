import { CsvService } from '../../../../core/resource/csv/csv.service';
import { listPath } from '../../../../core/resource/definition';
import { Job, JobFailed, JobRun, NetkeelJob } from '../job';
import { vars } from '../variables';
import type { JobFile } from '../../attachments/job-files';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Bulk import from CSV (the reference's "Import Objects"): the engine's CSV import of one
 * content type, as the user who runs it, all or none: one bad row and nothing is created (the
 * run fails with the rows' errors).
 */
@Job({
  module: 'netkeel.jobs.imports',
  className: 'ImportObjects',
  name: 'Import Objects',
  grouping: 'System Jobs',
  description: 'Import objects from CSV-formatted data.',
  hasSensitiveVariables: false,
  variables: {
    content_type: vars.string({ label: 'Content type', description: 'Type of objects to import (app_label.model)', regex: '^[a-z_]+\\.[a-z_]+$' }),
    csv_data: vars.text({ label: 'CSV data', description: 'CSV data, its first line the column names', required: false }),
    csv_file: vars.file({ label: 'CSV file', required: false }),
  },
})
export class ImportObjectsJob implements NetkeelJob {
  constructor(private readonly csv: CsvService) {}

  async run(run: JobRun, data: { content_type: string; csv_data: string | null; csv_file?: JobFile | null }) {
    const def = run.ctx.registry.get(data.content_type);
    if (!def || def.readOnly) throw new JobFailed(`Content type ${data.content_type} cannot be imported.`);
    if (!data.csv_data && !data.csv_file) throw new JobFailed('Either csv_data or csv_file must be provided');
    // A file's UTF-8 byte order mark is not part of its first column's name.
    const csv = data.csv_file ? data.csv_file.data.subarray(data.csv_file.data.subarray(0, 3).equals(BOM) ? 3 : 0) : Buffer.from(data.csv_data!, 'utf8');
    const created = (await this.csv.importCreate(run.ctx, def, csv, new Map())) as { id: string; display?: string; url?: string }[];
    for (const o of created) run.info(`Created ${def.verboseName}`, { display: o.display, url: o.url ?? run.ctx.url(`${listPath(def)}${o.id}/`) });
    run.success(`Created ${created.length} ${created.length === 1 ? def.verboseName : def.verboseNamePlural}.`);
    return { created: created.length };
  }
}
