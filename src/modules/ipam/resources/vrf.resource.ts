import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { globalNamespace} from './common';
import { namespaceResource } from './namespace.resource';
import { routeTargetResource } from './route-target.resource';

const targets = (table: string) =>
  field.manyToMany(() => routeTargetResource, { table, source: 'vrf_id', target: 'routetarget_id' }, { writable: true });

export const vrfResource = defineResource({
  app: 'ipam',
  model: 'vrf',
  slug: 'vrfs',
  verboseName: 'VRF',
  verboseNamePlural: 'VRFs',
  naturalKey: ['namespace', 'rd'],
  ordering: ['namespace', 'name', 'rd'],
  display: (r, h) => `${h.related('namespace')?.name ?? ''}: (${r.name})`,
  displayUses: { namespace: ['name'] },
  mixins: [statusMixin({ required: false }), tenancyMixin()],
  indexes: [['namespace_id', 'name', 'rd']],
  fields: {
    name: field.string({ required: true, maxLength: 255 }),
    rd: field.string({
      maxLength: 21,
      nullable: true,
      label: 'Route distinguisher',
      help: 'Unique route distinguisher (as defined in RFC 4364)',
      normalize: (v: string) => (v === '' ? null : v),
    }),
    namespace: field.foreignKey(() => namespaceResource, { onDelete: 'protect', default: globalNamespace }),
    description: field.string({ maxLength: 255 }),
    import_targets: targets('ipam_vrf_import_targets'),
    export_targets: targets('ipam_vrf_export_targets'),
    prefixes: field.manyToMany(model('ipam.prefix'), { table: 'ipam_vrfprefixassignment', source: 'vrf_id', target: 'prefix_id' }, { readOnly: true }),
  },
  uniqueTogether: [{ fields: ['namespace', 'rd'] }],
  search: ['name', 'rd', 'description'],
  features: ['tags', 'customFields', 'notes'],
});
