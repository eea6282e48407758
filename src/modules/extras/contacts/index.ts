import { contactAssociationResource } from './contact-association.resource';
import { contactResource, teamResource } from './contact.resource';
import { contactsExtension } from './extension';
import { metadataChoiceResource, metadataTypeResource } from './metadata-type.resource';
import { objectMetadataResource } from './object-metadata.resource';

/** Contacts, teams and their associations with objects; metadata types, their choices and object metadata. */
export const contactsResources = [teamResource, contactResource, contactAssociationResource, metadataTypeResource, metadataChoiceResource, objectMetadataResource];
export const contactsExtensions = [contactsExtension];
export const contactsControllers = [];
export const contactsProviders = [];
