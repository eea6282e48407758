import type { Choices } from '../../core/resource/fields';

/** The statuses a circuit takes on first start (Nautobot's CircuitStatusChoices). */
export const CIRCUIT_STATUSES = ['Planned', 'Provisioning', 'Active', 'Offline', 'Deprovisioning', 'Decommissioned'] as const;

/** The two ends of a circuit (Nautobot's CircuitTerminationSideChoices). */
export const TERM_SIDES: Choices = [
  ['A', 'A'],
  ['Z', 'Z'],
];
