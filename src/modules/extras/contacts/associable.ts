import { objectType, ResourceDefinition } from '../../../core/resource/definition';

/** The contact models themselves, which the reference opts out of contact association. */
const NOT_CONTACT_ASSOCIABLE = new Set(['extras.contact', 'extras.team', 'extras.contactassociation', 'extras.staticgroupassociation']);

/**
 * Models contacts and teams may be associated with (the reference's `ContactMixin`, which its
 * organizational and primary models and the extras models with notes take): every model with
 * notes, less the contact models themselves.
 */
export const contactAssociable = (d: ResourceDefinition) => d.features.includes('notes') && !NOT_CONTACT_ASSOCIABLE.has(objectType(d));

/**
 * Models the reference opts out of object metadata (`is_metadata_associable_model = False`:
 * link models, bookkeeping, users), and netkeel's own identity models, which it does not have.
 */
const NOT_METADATA_ASSOCIABLE = new Set([
  'extras.customfieldchoice',
  'extras.note',
  'extras.joblogentry',
  'extras.jobqueueassignment',
  'extras.taggeditem',
  'extras.fileattachment',
  'extras.dynamicgroupmembership',
  'extras.usersavedviewassociation',
  'extras.metadatachoice',
  'extras.objectmetadata',
  'dcim.devicetypetosoftwareimagefile',
  'dcim.interfaceredundancygroupassociation',
  'ipam.vrfdeviceassignment',
  'ipam.vrfprefixassignment',
  'ipam.prefixlocationassignment',
  'ipam.ipaddresstointerface',
  'ipam.vlanlocationassignment',
  'cloud.cloudnetworkprefixassignment',
  'cloud.cloudservicenetworkassignment',
  'wireless.controllermanageddevicegroupwirelessnetworkassignment',
  'wireless.controllermanageddevicegroupradioprofileassignment',
  'users.user',
  'users.group',
  'users.token',
  'users.objectpermission',
]);

/** Models object metadata may be assigned to (the reference's `metadata` feature): every model but the opted-out ones. */
export const metadataAssociable = (d: ResourceDefinition) => d.app !== 'identity' && !NOT_METADATA_ASSOCIABLE.has(objectType(d));
