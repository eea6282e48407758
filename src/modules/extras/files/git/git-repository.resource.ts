import { defineResource } from '../../../../core/resource/definition';
import { unscoped } from '../../../../core/resource/query/rows';
import { ident, inList, sql } from '../../../../database/sql';
import { field } from '../../../../core/resource/fields';
import { named } from '../../../../core/resource/mixin';
import { keyFromLabel } from '../../resources/computed-field.resource';
import { secretsGroupResource } from '../../resources/secret.resource';
import { branchError, commitError, slugImportError } from './git-names';

/** What a repository may provide (the reference's datasource contents registered for `extras.gitrepository`), sorted by value. */
export const PROVIDED_CONTENTS = [
  ['extras.configcontext', 'config contexts'],
  ['extras.configcontextschema', 'config context schemas'],
  ['extras.exporttemplate', 'export templates'],
  ['extras.graphqlquery', 'graphql queries'],
  ['extras.job', 'jobs'],
] as const;
const CONTENT_VALUES: readonly string[] = PROVIDED_CONTENTS.map(([v]) => v);

/** `provided_contents`: a list of the choices (the reference's MultipleChoiceJSONField). */
function contentList(v: unknown): string | undefined {
  if (!Array.isArray(v)) return `Expected a list of items but got type "${v === null ? 'NoneType' : typeof v === 'object' ? 'dict' : typeof v === 'string' ? 'str' : typeof v}".`;
  const bad = v.find((c) => typeof c !== 'string' || !CONTENT_VALUES.includes(c));
  return bad === undefined ? undefined : `"${typeof bad === 'object' ? JSON.stringify(bad) : String(bad)}" is not a valid choice.`;
}

/**
 * A Git repository as a data source (the reference's GitRepository): where it is, which branch,
 * the secrets group that reaches it and what it provides. `current_head` is what the last sync
 * found; syncing is a job (`POST git-repositories/<id>/sync/`, git.controller.ts).
 */
export const gitRepositoryResource = defineResource({
  app: 'extras',
  model: 'gitrepository',
  slug: 'git-repositories',
  verboseName: 'Git repository',
  verboseNamePlural: 'Git repositories',
  mixins: [named(255)],
  fields: {
    slug: field.string({
      maxLength: 100,
      unique: true,
      help: 'Internal field name. Please use underscores rather than dashes in this key.',
      populateFrom: (values) => keyFromLabel(String(values.name ?? '')),
    }),
    remote_url: field.url({ maxLength: 255, required: true, label: 'Remote URL', help: 'Only HTTP and HTTPS URLs are presently supported', validate: (v: string) => (/^https?:\/\//i.test(v) && field.url({ lax: true }).validate!(v) === undefined ? undefined : 'Enter a valid URL.') }),
    branch: field.string({ maxLength: 255, default: 'main', help: 'Branch, tag, or commit' }),
    current_head: field.string({ maxLength: 48, readOnly: true, help: 'Commit hash of the most recent fetch from the selected branch. Used for syncing between workers.' }),
    secrets_group: field.foreignKey(() => secretsGroupResource, { nullable: true, relatedName: 'git_repositories' }),
    provided_contents: field.json({ default: () => [], validate: contentList, listOf: { type: 'string', choices: PROVIDED_CONTENTS } }),
  },
  search: ['remote_url', 'branch'],
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    const errors: Record<string, string[]> = {};
    const branch = branchError(s.values.branch);
    if (branch) errors.branch = [branch];
    const head = commitError(s.values.current_head);
    if (head) errors.current_head = [head];
    const slug = String(s.values.slug ?? '');
    if (!s.create && s.existing && slug !== String(s.existing.slug)) {
      errors.non_field_errors = [`Slug cannot be changed once set. Current slug is ${s.existing.slug}, requested slug is ${slug}`];
    }
    if (s.create) {
      const unsafe = slugImportError(slug);
      if (unsafe) errors.slug = [unsafe];
    }
    return errors;
  },
  /**
   * The reference's clean(): no two repositories of one remote URL provide the same content. One
   * read of the stored repositories of the batch's URLs; earlier objects of the batch count too.
   */
  async validateBatch(states, w) {
    const providing = states.filter((s) => Array.isArray(s.values.provided_contents) && s.values.provided_contents.length);
    if (!providing.length) return;
    const urls = [...new Set(providing.map((s) => String(s.values.remote_url)))];
    const stored = await w.exec.query(sql`SELECT ${ident('id')}, ${ident('remote_url')}, ${ident('provided_contents')} ${unscoped(gitRepositoryResource).from(inList(ident('remote_url'), urls))}`);
    const others = stored.map((r) => ({ id: String(r.id), url: String(r.remote_url), contents: (typeof r.provided_contents === 'string' ? JSON.parse(r.provided_contents) : r.provided_contents) as string[] }));
    return states.map((s) => {
      const mine = providing.includes(s) ? (s.values.provided_contents as string[]) : [];
      const url = String(s.values.remote_url);
      const id = String(s.values.id);
      const clash = others.some((o) => o.url === url && o.id !== id && o.contents.some((c) => mine.includes(c)));
      others.push({ id, url, contents: mine });
      if (clash) return { non_field_errors: [`Another Git repository already configured for remote URL ${url} provides contents overlapping with this repository.`] };
    });
  },
  beforeSave(states) {
    // A new remote or branch: the head fetched before no longer says anything.
    for (const s of states) {
      if (s.create || !s.existing) continue;
      if (s.values.remote_url !== s.existing.remote_url || s.values.branch !== s.existing.branch) s.values.current_head = '';
    }
  },
});
