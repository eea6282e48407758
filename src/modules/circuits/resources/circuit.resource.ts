import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { statusMixin } from '../../extras/mixins';
import { tenancyMixin } from '../../tenancy/mixins';
import { CIRCUIT_STATUSES } from '../choices';
import { circuitTypeResource } from './circuit-type.resource';
import { providerResource } from './provider.resource';

/** The termination of a side, kept by the terminations' hooks (Nautobot's cached circuit_termination_a / _z): never written by a client. */
const end = () => field.foreignKey(model('circuits.circuittermination'), { nullable: true, readOnly: true, onDelete: 'setNull', maintained: true, relatedName: '+' });

/**
 * A communications circuit of a provider, identified by its circuit ID (`cid`, unique per
 * provider); speeds in Kbps. Its two ends are its terminations (A and Z).
 */
export const circuitResource = defineResource({
  app: 'circuits',
  model: 'circuit',
  // Read by a location's counts or every model's tags: kept with a detail (serialize/kept-values.ts).
  watched: true,
  slug: 'circuits',
  naturalKey: ['provider', 'cid'],
  ordering: ['provider', 'cid'],
  display: (r) => r.cid,
  filterName: 'cid',
  mixins: [statusMixin({ defaults: CIRCUIT_STATUSES }), tenancyMixin()],
  fields: {
    cid: field.string({ required: true, maxLength: 255, label: 'Circuit ID' }),
    provider: field.foreignKey(() => providerResource, { required: true, onDelete: 'protect' }),
    circuit_type: field.foreignKey(() => circuitTypeResource, { required: true, onDelete: 'protect' }),
    install_date: field.date({ nullable: true, label: 'Date installed' }),
    commit_rate: field.integer({ nullable: true, minValue: 0, maxValue: 2147483647, label: 'Commit rate (Kbps)' }),
    description: field.string({ maxLength: 255 }),
    comments: field.text(),
    circuit_termination_a: end(),
    circuit_termination_z: end(),
  },
  uniqueTogether: [{ fields: ['provider', 'cid'] }],
  search: ['cid', 'circuit_terminations__xconnect_id', 'circuit_terminations__pp_info', 'circuit_terminations__description', 'description', 'comments'],
  filterAliases: {
    // Through the circuit's terminations: a location includes its descendants.
    location: 'circuit_terminations__location',
    provider_network: 'circuit_terminations__provider_network',
    cloud_network: 'circuit_terminations__cloud_network',
    has_terminations: 'has_circuit_terminations',
  },
  features: ['tags', 'customFields', 'notes'],
});
