import { defineApp } from '../../core/resource/app';
import { traceController } from '../dcim/cabling/trace.controller';
import { circuitTerminationResource } from './resources/circuit-termination.resource';
import { circuitTypeResource } from './resources/circuit-type.resource';
import { circuitResource } from './resources/circuit.resource';
import { providerNetworkResource } from './resources/provider-network.resource';
import { providerResource } from './resources/provider.resource';

/** Providers, their networks and circuits, and the circuits' terminations (cabled and traced like DCIM ports). */
export const circuitsApp = defineApp({
  label: 'circuits',
  resources: [providerResource, providerNetworkResource, circuitTypeResource, circuitResource, circuitTerminationResource],
  controllers: [traceController(circuitTerminationResource)],
});
