import { objectType, defineResource } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { UploadedFile } from '../../../core/http/multipart';
import { column } from '../../../database/schema/schema';
import { fileTable, NOT_A_FILE, saveFiles, sizeError, toUpload, UPLOAD } from './file-storage';
import { imageInfo } from './image-types';

/** The models that take image attachments (the reference's ImageAttachment.clean and serializer). */
const ATTACHABLE = ['dcim.device', 'dcim.location', 'dcim.rack'];

/** An image's URL (`image`); on update, naming the object's own file leaves it as it is. */
const OWN_URL = /\/api\/extras\/image-attachments\/([0-9a-f-]{36})\/image\/$/i;
const KEEP = '__keep';

/** The stored file's own name: `image-attachments/<model>_<object id>_<name>` -> `<name>`. */
export const imageFilename = (stored: unknown) => String(stored ?? '').replace(/^.*\//, '').split('_').slice(2).join('_');

/**
 * An image uploaded for a device, location or rack (the reference's ImageAttachment), with the
 * reference's API keys (`content_type`, `object_id`, `parent`). Created with multipart/form-data
 * (or a `data:` URI in JSON); its type is read from its bytes (PNG, JPEG, GIF, WebP) and its size
 * from its header; `image` is the URL that serves it (`attachments.controller.ts`). Deleted with
 * its object; its bytes are in `extras_imageattachment_file` (file-storage.ts).
 */
export const imageAttachmentResource = defineResource({
  app: 'extras',
  model: 'imageattachment',
  slug: 'image-attachments',
  verboseName: 'image attachment',
  multipart: true,
  fields: {
    parent: field.genericForeignKey({
      typeColumn: 'content_type',
      idColumn: 'object_id',
      typeKey: 'content_type',
      idKey: 'object_id',
      allowed: (d) => ATTACHABLE.includes(objectType(d)),
      required: true,
      cascade: true,
    }),
    image: field.composite({
      columns: ['image'],
      schema: { type: 'string', format: 'uri' },
      required: true,
      read: (r, ctx) => `${ctx.baseUrl}/api/extras/image-attachments/${String(r.id)}/image/`,
      parse: (v) => {
        // The URL a GET shows (a client sending back what it read): the object's own file, unchanged.
        const own = typeof v === 'string' ? OWN_URL.exec(v) : null;
        if (own) return { [KEEP]: own[1].toLowerCase() };
        const file = toUpload(v, 'image');
        if (typeof file === 'string') return file;
        const info = imageInfo(file.data);
        if (!info) return 'Upload a valid image. The file you uploaded was either not an image or a corrupted image.';
        if (info.width > 32767 || info.height > 32767) return 'Ensure the image is at most 32767 pixels wide and high.';
        const name = /\.\w+$/.test(file.filename) ? file.filename.replace(/[^\w.-]+/g, '_') : `${file.filename.replace(/[^\w.-]+/g, '_')}.${info.extension}`;
        return { image: name, image_height: info.height, image_width: info.width, [UPLOAD]: new UploadedFile(name, info.mime, file.data) };
      },
    }),
    image_height: field.integer({ readOnly: true, minValue: 0, maxValue: 32767 }),
    image_width: field.integer({ readOnly: true, minValue: 0, maxValue: 32767 }),
    name: field.string({ maxLength: 255, blank: true, index: true }),
  },
  columns: { image: column.string(255) },
  naturalKey: ['id'],
  ordering: ['name'],
  search: ['name'],
  display: (r) => String(r.name || imageFilename(r.image)),
  rules(s, w) {
    if (s.values[KEEP] !== undefined && (s.create || s.values[KEEP] !== String(s.values.id).toLowerCase())) return { image: [NOT_A_FILE] };
    const file = s.values[UPLOAD];
    const tooBig = file instanceof UploadedFile ? sizeError(file, w.ctx.settings.FILE_UPLOAD_MAX_SIZE) : undefined;
    if (tooBig) return { image: [tooBig] };
  },
  // The stored name, as the reference's upload_to: `image-attachments/<model>_<object id>_<file name>`.
  beforeSave(states) {
    for (const s of states) {
      const file = s.values[UPLOAD];
      if (!(file instanceof UploadedFile)) continue;
      const model = String(s.values.content_type).split('.')[1];
      s.values.image = `image-attachments/${model}_${String(s.values.object_id)}_${file.filename}`.slice(0, 255);
    }
  },
  afterSave: (ids, w, states) => saveFiles(w.exec, imageAttachmentFiles, states, ids),
});

/** The bytes of image attachments. */
export const imageAttachmentFiles = fileTable('extras_imageattachment');
