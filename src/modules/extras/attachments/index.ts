import { AttachmentsController } from './attachments.controller';
import { fileProxyFiles, fileProxyResource } from './file-proxy.resource';
import { imageAttachmentFiles, imageAttachmentResource } from './image-attachment.resource';

/** Image attachments and file proxies (a job's files): their models, the tables of their bytes and the endpoints that serve them. */
export const attachmentsResources = [imageAttachmentResource, fileProxyResource];
export const attachmentsTables = [imageAttachmentFiles, fileProxyFiles];
export const attachmentsControllers = [AttachmentsController];
export const attachmentsProviders = [];
