import { objectType, type CustomFilter, type ResourceDefinition } from '../../../core/resource/definition';
import type { ModelExtension } from '../../../core/resource/extension';
import { ident, inList, sql } from '../../../database/sql';
import { contactAssociable } from './associable';
import { contactAssociationResource } from './contact-association.resource';
import { contactResource, teamResource } from './contact.resource';

/** Objects associated with any of these contacts (or teams), through the associations the requester may view. */
const associatedWith = (target: () => ResourceDefinition, column: 'contact_id' | 'team_id'): CustomFilter => ({
  lookups: ['', 'n'],
  async compile(values, _lookup, h) {
    const ids = await h.resolveIds(target(), values);
    const associations = await h.rows(contactAssociationResource, 'ca');
    return sql`${h.col('id')} IN ${associations.select('associated_object_id', sql`${ident('ca', 'associated_object_type')} = ${objectType(h.def)}`, inList(ident('ca', column), ids))}`;
  },
});

/**
 * The `contacts` and `teams` filters the reference gives every model contacts may be associated
 * with (by a contact's or team's id or name).
 */
export const contactsExtension: ModelExtension = {
  applies: contactAssociable,
  filters: {
    contacts: associatedWith(() => contactResource, 'contact_id'),
    teams: associatedWith(() => teamResource, 'team_id'),
  },
};
