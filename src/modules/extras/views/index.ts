import { customLinkResource } from './custom-link.resource';
import { exportTemplatesExtension } from './export';
import { exportTemplateResource } from './export-template.resource';
import { savedViewResource, userSavedViewAssociationResource } from './saved-view.resource';

/** Saved views, export templates (and `?export=` on every list) and custom links: the reference's models of list views and links. */
export const viewsResources = [savedViewResource, userSavedViewAssociationResource, exportTemplateResource, customLinkResource];
export const viewsControllers = [];
export const viewsProviders = [];
export const viewsExtensions = [exportTemplatesExtension];
