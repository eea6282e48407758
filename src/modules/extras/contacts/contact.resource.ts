import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';

/**
 * What contacts and teams share (the reference's ContactTeamSharedBase): a name, phone, e-mail
 * and address, unique as a set, shown as "<name> (<phone>) (<email>)", searched by name,
 * e-mail and phone.
 */
const contactTeamBase = mixin({
  fields: () => ({
    name: field.string({ required: true, maxLength: 255, index: true }),
    phone: field.string({ maxLength: 255, index: true }),
    email: field.email({ maxLength: 254, index: true, label: 'E-mail' }),
    address: field.text(),
    comments: field.text(),
  }),
  first: true,
  search: ['name', 'email', 'phone'],
  uniqueTogether: [{ fields: ['name', 'phone', 'email'] }],
  features: ['tags', 'customFields', 'notes'],
  defaults: {
    naturalKey: ['name'],
    ordering: ['name'],
    display: (r) => `${r.name}${r.phone ? ` (${r.phone})` : ''}${r.email ? ` (${r.email})` : ''}`,
  },
});

/** The link table of teams and their contacts: Team.contacts in the reference. */
const TEAM_CONTACTS = 'extras_team_contacts';

/**
 * A group of contacts, usable wherever a single contact is. Declared before `contact`: the link
 * table both sides write is derived from the first model that names it, the team (its key is
 * team, contact, as the reference's).
 */
export const teamResource = defineResource({
  app: 'extras',
  model: 'team',
  slug: 'teams',
  mixins: [contactTeamBase],
  fields: {
    contacts: field.manyToMany(() => contactResource, { table: TEAM_CONTACTS, source: 'team_id', target: 'contact_id' }, { writable: true, relatedName: '+' }),
  },
});

/** A person or other point of contact; `teams` is the reverse of a team's `contacts`, written from either side. */
export const contactResource = defineResource({
  app: 'extras',
  model: 'contact',
  slug: 'contacts',
  mixins: [contactTeamBase],
  fields: {
    teams: field.manyToMany(() => teamResource, { table: TEAM_CONTACTS, source: 'contact_id', target: 'team_id' }, { writable: true, relatedName: '+' }),
  },
});
