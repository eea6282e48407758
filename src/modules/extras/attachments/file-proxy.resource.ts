import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { jobResultResource } from '../jobs/resources/job-result.resource';
import { fileTable } from './file-storage';

/**
 * A file a job was given (a FileVar) or made (the reference's FileProxy): read-only, filled by
 * the run endpoint; `download/` serves the bytes (`attachments.controller.ts`), which are in
 * `extras_fileproxy_file` and go with the proxy, which goes with its job result.
 */
export const fileProxyResource = defineResource({
  app: 'extras',
  model: 'fileproxy',
  slug: 'file-proxies',
  verboseName: 'file proxy',
  verboseNamePlural: 'file proxies',
  readOnly: true,
  fields: {
    name: field.string({ maxLength: 255, required: true }),
    uploaded_at: field.datetime({ readOnly: true }),
    job_result: field.foreignKey(() => jobResultResource, { nullable: true, onDelete: 'cascade', relatedName: 'files' }),
  },
  naturalKey: ['name', 'uploaded_at'],
  ordering: ['name'],
  search: ['name', 'job_result__job_model__name'],
  // The reference's `job` (the job of the file's result, by name or id) and `job_result_id`.
  filterAliases: { job: 'job_result__job_model', job_result_id: 'job_result' },
  display: (r) => String(r.name),
});

/** The bytes of file proxies. */
export const fileProxyFiles = fileTable('extras_fileproxy');
