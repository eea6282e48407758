import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { same } from '../../../core/resource/resource-writer';
import { ident, inList, sql } from '../../../database/sql';

export const STATUS_ON_DELETE_CHOICES = [
  ['D', 'Deleted'],
  ['S', 'Suspended'],
  ['GP', 'Grace period'],
] as const;

/** How `link_existing` matches a message's person to an existing user. */
export const LINK_MATCH_CHOICES = [
  ['username_and_email', 'Username and email address'],
  ['username', 'Username'],
  ['email', 'Email address'],
  ['username_or_email', 'Username or email address'],
] as const;

const SLUG = /^[-a-zA-Z0-9_]+$/;
const GROUP_NAME_MAX = 150;

/** A JSON object mapping non-empty keys to group names (users_group.name is 150 characters). */
function groupMap(what: string) {
  return (v: unknown): string | undefined => {
    const example = `e.g. {"staff": "Staff"}`;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return `Enter a JSON object mapping each ${what} to a group name, ${example}.`;
    for (const [k, g] of Object.entries(v)) {
      if (k.trim() === '') return `Enter a JSON object mapping each ${what} to a group name, ${example}; keys may not be blank.`;
      if (typeof g !== 'string' || g.trim() === '' || g.length > GROUP_NAME_MAX) {
        return `The group name for "${k}" must be a non-empty string of at most ${GROUP_NAME_MAX} characters.`;
      }
    }
    return undefined;
  };
}

/** A source of record that pushes external identities, and how its people become users. */
export const identitySourceResource = defineResource({
  app: 'identity',
  model: 'identitysource',
  slug: 'sources',
  verboseName: 'identity source',
  verboseNamePlural: 'identity sources',
  description: 'Sources of record (HR, student system, partner directory) that push external identities to /api/identity/sources/<slug>/identities/<sor_id>/.',
  naturalKey: ['slug'],
  ordering: ['name'],
  display: (r) => r.name,
  fields: {
    name: field.string({ required: true, unique: true, maxLength: 100 }),
    slug: field.string({
      required: true,
      unique: true,
      maxLength: 100,
      help: 'URL segment of the intake endpoint',
      validate: (v: string) => (SLUG.test(v) ? undefined : 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'),
    }),
    description: field.string({ maxLength: 200 }),
    enabled: field.boolean({ default: true, help: 'A disabled source accepts no messages (409)' }),
    username_identifier_type: field.string({
      maxLength: 100,
      help: 'The identifier type whose value becomes the username; without one, the first email address is used',
    }),
    affiliation_groups: field.json({ default: () => ({}), help: 'Affiliation -> group name: members of a role with this affiliation join the group', validate: groupMap('affiliation') }),
    role_groups: field.json({ default: () => ({}), help: 'roleIdentifier -> group name: members of this role join the group', validate: groupMap('roleIdentifier') }),
    status_on_delete: field.choice(STATUS_ON_DELETE_CHOICES, { default: 'D', maxLength: 2, help: 'What a role missing from a later message becomes' }),
    grace_period_days: field.integer({ default: 30, minValue: 0, maxValue: 3650, help: 'How long a role in grace period (GP) still grants access, in days' }),
    link_existing: field.boolean({
      default: false,
      help: 'Link a person to an existing user that no other source manages, when link_match says they are the same (never a superuser, a staff user or an identity service account)',
    }),
    link_match: field.choice(LINK_MATCH_CHOICES, {
      default: 'username_and_email',
      maxLength: 20,
      help: "With link_existing: which of the user's username and email address must match the person's",
    }),
  },
  search: ['name', 'slug', 'description'],
  features: [],
  /**
   * New group maps apply to the source's people at their next authentication (or message):
   * their identities are marked due, as when a validity window passes, and so are their users'
   * status checks.
   */
  async afterSave(_, { exec, ctx }, states) {
    const remapped = states.filter(
      (s) => s.existing && (!same(s.existing.affiliation_groups, s.values.affiliation_groups) || !same(s.existing.role_groups, s.values.role_groups)),
    );
    if (!remapped.length) return;
    const now = ctx.now();
    const sources = remapped.map((s) => String(s.values.id));
    await exec.execute(
      sql`UPDATE ${ident('identity_externalidentity')} SET ${ident('next_transition')} = ${now}
          WHERE ${inList(ident('source_id'), sources)} AND ${ident('user_id')} IS NOT NULL`,
    );
    // ...and the auth guard asks about their users from now on (status/status-check.ts).
    await exec.execute(
      sql`UPDATE ${ident('users_user')} SET ${ident('status_check_after')} = ${now}
          WHERE ${ident('id')} IN (SELECT ${ident('user_id')} FROM ${ident('identity_externalidentity')} WHERE ${inList(ident('source_id'), sources)})
            AND (${ident('status_check_after')} IS NULL OR ${ident('status_check_after')} > ${now})`,
    );
  },
});
