import { defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { roleMixin, statusMixin } from '../mixins';
import { contactAssociable } from './associable';
import { contactResource, teamResource } from './contact.resource';
import { contactOrTeam, contactOrTeamErrors } from './contact-or-team';

/** The reference's ContactAssociationStatusChoices and ContactAssociationRoleChoices, seeded for the model on first start. */
export const CONTACT_ASSOCIATION_STATUSES = ['Primary', 'Secondary', 'Active'];
export const CONTACT_ASSOCIATION_ROLES = ['Administrative', 'Billing', 'Support', 'On Site'];

const unique = (side: 'contact' | 'team') => ({
  fields: ['associated_object', side, 'role'],
  columns: ['associated_object_type', 'associated_object_id', `${side}_id`, 'role_id'],
  db: [`${side}_id`, 'associated_object_type', 'associated_object_id', 'role_id'],
  message: `The fields associated_object_type, associated_object_id, ${side}, role must make a unique set.`,
});

/**
 * A contact or a team (exactly one) on any object that takes contacts, in a role and with a
 * status. Deleted with its contact or team, and with its object (a generic key pointing at it).
 */
export const contactAssociationResource = defineResource({
  app: 'extras',
  model: 'contactassociation',
  slug: 'contact-associations',
  verboseName: 'contact association',
  mixins: [
    contactOrTeam({ onDelete: 'cascade', relatedName: 'contact_associations' }),
    roleMixin({ required: true, defaults: CONTACT_ASSOCIATION_ROLES }),
    statusMixin({ defaults: CONTACT_ASSOCIATION_STATUSES }),
  ],
  naturalKey: ['contact', 'associated_object_type', 'associated_object_id', 'role'],
  ordering: ['created'],
  displayUses: { contact: ['id', 'name', 'phone', 'email'], team: ['id', 'name', 'phone', 'email'] },
  // "Contact <contact> for <object>" / "Team contact <team> for <object>": the object by its id (its name would need its own row).
  display: (r, h) => {
    const contact = h.related('contact');
    const team = h.related('team');
    const object = String(r.associated_object_id);
    return contact ? `Contact ${contactResource.display(contact, h)} for ${object}` : `Team contact ${team ? teamResource.display(team, h) : ''} for ${object}`;
  },
  fields: {
    associated_object: field.genericForeignKey({ allowed: contactAssociable, required: true }),
  },
  uniqueTogether: [unique('contact'), unique('team')],
  features: ['customFields', 'notes'],
  rules: (s) => contactOrTeamErrors(s.values),
});
