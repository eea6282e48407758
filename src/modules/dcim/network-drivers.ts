import drivers from './network-drivers.json';

/**
 * The driver names of each automation library for a normalized network driver (`cisco_ios` ->
 * ansible `cisco.ios.ios`, napalm `ios`, netmiko `cisco_ios`, ...): the mapping table of the
 * netutils library (networktocode/netutils, `lib_mapper.NAME_TO_ALL_LIB_MAPPER`, Apache-2.0),
 * which Nautobot shows as a platform's `network_driver_mappings`. An unknown driver maps to {}.
 */
const MAPPINGS: Record<string, Readonly<Record<string, string>>> = Object.assign(Object.create(null), drivers);

export function networkDriverMappings(driver: unknown): Readonly<Record<string, string>> {
  return (typeof driver === 'string' && MAPPINGS[driver]) || {};
}
