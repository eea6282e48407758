import type { Row } from '../../../database/db';
import type { FieldErrors } from '../../../core/resource/errors';
import { field } from '../../../core/resource/fields';
import { mixin } from '../../../core/resource/mixin';
import { contactResource, teamResource } from './contact.resource';

/**
 * A contact or a team (contact associations, object metadata of the contact-or-team type): two
 * optional foreign keys, filtered by id or name, searched by their names.
 */
export const contactOrTeam = (o: { onDelete: 'cascade' | 'protect'; relatedName: string }) =>
  mixin({
    fields: () => ({
      contact: field.foreignKey(() => contactResource, { nullable: true, onDelete: o.onDelete, relatedName: o.relatedName }),
      team: field.foreignKey(() => teamResource, { nullable: true, onDelete: o.onDelete, relatedName: o.relatedName }),
    }),
    first: true,
    search: ['contact__name', 'team__name'],
  });

/** The reference's rule: exactly one of the two, with its messages. */
export function contactOrTeamErrors(values: Row): FieldErrors | undefined {
  const contact = values.contact_id !== null && values.contact_id !== undefined;
  const team = values.team_id !== null && values.team_id !== undefined;
  if (!contact && !team) return { non_field_errors: ['Either a contact or a team must be specified'] };
  if (contact && team) return { non_field_errors: ['A contact and a team cannot be both specified at once'] };
  return undefined;
}
