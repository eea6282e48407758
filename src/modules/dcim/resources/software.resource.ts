import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { link } from '../../../core/resource/mixin';
import { FALSE, ident, inList, sql } from '../../../database/sql';
import { statusMixin } from '../../extras/mixins';
import { HASHING_ALGORITHMS, SOFTWARE_STATUSES } from '../choices';
import { deviceTypeResource } from './device-type.resource';
import { platformResource } from './platform.resource';

/** A software version as the reference prints it: its alias, else "<platform> - <version>". */
const versionName = (alias: unknown, platform: unknown, version: unknown) => (alias ? String(alias) : `${platform ?? ''} - ${version}`);

/**
 * A release of a platform's software (Junos 23.4R1): unique per platform, with its dates,
 * support and status. Devices run one (`software_version`); its image files say what to load.
 */
export const softwareVersionResource = defineResource({
  app: 'dcim',
  model: 'softwareversion',
  slug: 'software-versions',
  verboseName: 'software version',
  naturalKey: ['platform', 'version'],
  filterName: 'version',
  ordering: ['platform', 'version', 'end_of_support_date', 'release_date'],
  display: (r, h) => versionName(r.alias, h.related('platform')?.name, r.version),
  displayUses: { platform: ['name'] },
  mixins: [statusMixin({ defaults: SOFTWARE_STATUSES })],
  fields: {
    platform: field.foreignKey(() => platformResource, { required: true, onDelete: 'cascade', relatedName: 'software_versions' }),
    version: field.string({ required: true, maxLength: 255 }),
    alias: field.string({ maxLength: 255, help: 'Optional alternative label for this version' }),
    release_date: field.date({ nullable: true, label: 'Release Date' }),
    end_of_support_date: field.date({ nullable: true, label: 'End of Support Date' }),
    documentation_url: field.url({ label: 'Documentation URL' }),
    long_term_support: field.boolean({ label: 'Long Term Support', help: 'Is a Long Term Support version' }),
    pre_release: field.boolean({ label: 'Pre-Release', help: 'Is a Pre-Release version' }),
  },
  uniqueTogether: [{ fields: ['platform', 'version'] }],
  search: ['version', 'alias', 'platform__name'],
  filters: {
    /** Versions with an image file of any of these device types (model or ID). */
    device_types: {
      lookups: ['n'],
      compile: async (values, _l, h) => {
        const ids = await h.resolveIds(deviceTypeResource, values);
        if (!ids.length) return FALSE;
        // Through the image files and their device-type mappings the requester may view.
        const mappings = (await h.rows(model('dcim.devicetypetosoftwareimagefile')(), 'm')).select('software_image_file_id', inList(ident('m', 'device_type_id'), ids));
        return sql`${h.col('id')} IN ${(await h.rows(softwareImageFileResource, 'f')).select('software_version_id', sql`${ident('f', 'id')} IN ${mappings}`)}`;
      },
    },
  },
  features: ['tags', 'customFields', 'notes'],
});

/**
 * A file of a software version (an image to load), unique by name per version, with its
 * checksum, size and download URL; `default_image` marks the version's default. The reference's
 * `external_integration` (an extras model netkeel lacks) is left out.
 */
export const softwareImageFileResource = defineResource({
  app: 'dcim',
  model: 'softwareimagefile',
  slug: 'software-image-files',
  verboseName: 'software image file',
  naturalKey: ['image_file_name', 'software_version'],
  filterName: 'image_file_name',
  ordering: ['software_version', 'image_file_name'],
  display: (r, h) => {
    const v = h.related('software_version');
    return `${v ? versionName(v.alias, v.platform__name, v.version) : ''} - ${r.image_file_name}`;
  },
  displayUses: { software_version: ['alias', 'version', 'platform__name'] },
  mixins: [statusMixin({ defaults: SOFTWARE_STATUSES })],
  fields: {
    software_version: field.foreignKey(() => softwareVersionResource, { required: true, onDelete: 'cascade', label: 'Software Version' }),
    image_file_name: field.string({ required: true, maxLength: 255, label: 'Image File Name' }),
    image_file_checksum: field.string({ maxLength: 256, label: 'Image File Checksum' }),
    hashing_algorithm: field.choice(HASHING_ALGORITHMS, { maxLength: 255, label: 'Hashing Algorithm', help: 'Hashing algorithm for image file checksum' }),
    image_file_size: field.integer({ nullable: true, minValue: 0, maxValue: Number.MAX_SAFE_INTEGER, storage: 'bigint', label: 'Image File Size', help: 'Image file size in bytes' }),
    download_url: field.url({ lax: true, label: 'Download URL' }),
    external_integration: field.foreignKey(model('extras.externalintegration'), { nullable: true, onDelete: 'protect', relatedName: 'software_image_files' }),
    default_image: field.boolean({ label: 'Default Image', help: 'Is the default image for this software version' }),
  },
  uniqueTogether: [{ fields: ['image_file_name', 'software_version'] }],
  search: ['image_file_name', 'software_version__version', 'software_version__alias', 'software_version__platform__name'],
  features: ['tags', 'customFields', 'notes'],
});

/** A software image file valid for a device type (the type's `software_image_files`); an image file in use this way is protected. */
export const deviceTypeToSoftwareImageFileResource = defineResource({
  app: 'dcim',
  model: 'devicetypetosoftwareimagefile',
  slug: 'device-types-to-software-image-files',
  verboseName: 'device type to software image file mapping',
  mixins: [
    link(
      { name: 'device_type', target: () => deviceTypeResource, relatedName: 'software_image_file_mappings' },
      { name: 'software_image_file', target: () => softwareImageFileResource, relatedName: 'device_type_mappings', onDelete: 'protect' },
    ),
  ],
  // The reference's str(): the device type's (its model), then the image file's ("<version> - <file name>").
  display: (_r, h) => {
    const type = h.related('device_type');
    const file = h.related('software_image_file');
    // A version the requester may not view lends no name.
    const version = file && file.software_version__version !== null && file.software_version__version !== undefined ? `${versionName(file.software_version__alias, file.software_version__platform__name, file.software_version__version)} - ` : '';
    return `${type?.model ?? ''} - ${version}${file?.image_file_name ?? ''}`;
  },
  displayUses: { device_type: ['model'], software_image_file: ['image_file_name', 'software_version__alias', 'software_version__version', 'software_version__platform__name'] },
  fields: {},
  search: ['device_type__model', 'software_image_file__image_file_name'],
  features: [],
});
