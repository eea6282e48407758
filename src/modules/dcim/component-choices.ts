import type { Choices } from '../../core/resource/fields';
import data from './component-choices.json';

/**
 * Choice lists of device types and their components, as Nautobot 2.4 (v2.4.36) lists them in
 * `dcim/choices.py` (`InterfaceTypeChoices`, `PortTypeChoices`, ...): the values and labels are
 * data, kept in component-choices.json by group (a `null` group is no group), flattened here.
 */
type Grouped = [group: string | null, choices: [value: string, label: string][]][];

const lists = data as unknown as Record<string, Grouped>;
const flat = (key: string): Choices => Object.freeze(lists[key].flatMap(([, choices]) => choices.map(([v, l]) => Object.freeze([v, l] as const))));
const group = (key: string, name: string): ReadonlySet<string> => new Set(lists[key].find(([g]) => g === name)?.[1].map(([v]) => v) ?? []);

export const SUBDEVICE_ROLES = flat('subdevice_role');
export const CONSOLE_PORT_TYPES = flat('console_port_type');
export const POWER_PORT_TYPES = flat('power_port_type');
export const POWER_OUTLET_TYPES = flat('power_outlet_type');
export const FEED_LEGS = flat('feed_leg');
export const INTERFACE_TYPES = flat('interface_type');
export const DUPLEX_MODES = flat('duplex');
export const PORT_TYPES = flat('port_type');

/** Interface types that are not a physical port (Nautobot's VIRTUAL_IFACE_TYPES, WIRELESS_IFACE_TYPES). */
export const VIRTUAL_INTERFACE_TYPES = group('interface_type', 'Virtual interfaces');
export const WIRELESS_INTERFACE_TYPES = group('interface_type', 'Wireless');
/** Interface types for which a duplex mode means something (COPPER_TWISTED_PAIR_IFACE_TYPES). */
export const COPPER_TWISTED_PAIR_TYPES: ReadonlySet<string> = new Set(['100base-tx', '1000base-t', '2.5gbase-t', '5gbase-t', '10gbase-t']);

/** Positions of a rear port (REARPORT_POSITIONS_MIN/MAX). */
export const REAR_PORT_POSITIONS = { min: 1, max: 1024 } as const;
