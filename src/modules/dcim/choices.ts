/** Choices of the rack and power models, as Nautobot 2.4 lists them (value, label). */

export const RACK_TYPES = [
  ['2-post-frame', '2-post frame'],
  ['4-post-frame', '4-post frame'],
  ['4-post-cabinet', '4-post cabinet'],
  ['wall-frame', 'Wall-mounted frame'],
  ['wall-frame-vertical', 'Wall-mounted frame (vertical)'],
  ['wall-cabinet', 'Wall-mounted cabinet'],
  ['wall-cabinet-vertical', 'Wall-mounted cabinet (vertical)'],
  ['other', 'Other'],
] as const;

export const RACK_WIDTHS = [
  [10, '10 inches'],
  [19, '19 inches'],
  [21, '21 inches'],
  [23, '23 inches'],
] as const;

export const RACK_DIMENSION_UNITS = [
  ['mm', 'Millimeters'],
  ['in', 'Inches'],
] as const;

export const DEVICE_FACES = [
  ['front', 'Front'],
  ['rear', 'Rear'],
] as const;

export const RACK_U_HEIGHT_DEFAULT = 42;
export const RACK_U_HEIGHT_MAXIMUM = 500;

export const POWER_PANEL_TYPES = [
  ['utility', 'Utility'],
  ['generator', 'Generator'],
  ['switchgear', 'Switchgear'],
  ['mdp', 'Main Distribution Panel (MDP)'],
  ['ups', 'Uninterruptible Power Supply (UPS)'],
  ['transfer-switch', 'Transfer Switch (TS)'],
  ['pdu', 'Power Distribution Unit (PDU)'],
  ['panelboard', 'Panelboard'],
  ['mlc', 'Mini Load Center (MLC)'],
  ['rpp', 'Remote Power Panel (RPP)'],
] as const;

export const POWER_PATHS = [
  ['a', 'Path A'],
  ['b', 'Path B'],
] as const;

export const POWER_FEED_TYPES = [
  ['primary', 'Primary'],
  ['redundant', 'Redundant'],
] as const;

export const POWER_FEED_SUPPLIES = [
  ['ac', 'AC'],
  ['dc', 'DC'],
] as const;

export const POWER_FEED_PHASES = [
  ['single-phase', 'Single phase'],
  ['three-phase', 'Three-phase'],
] as const;

export const POWER_FEED_BREAKER_POLES = [
  [1, '1-Pole'],
  [2, '2-Pole'],
  [3, '3-Pole'],
] as const;

/** The reference's default statuses of a rack and of a power feed. */
export const RACK_STATUSES = ['Reserved', 'Available', 'Planned', 'Active', 'Deprecated'] as const;
export const POWER_FEED_STATUSES = ['Offline', 'Active', 'Planned', 'Failed'] as const;
export const DEVICE_STATUSES = ['Active', 'Decommissioning', 'Failed', 'Inventory', 'Offline', 'Planned', 'Staged'] as const;

export const CABLE_TYPES = [
  ['cat3', 'CAT3'],
  ['cat5', 'CAT5'],
  ['cat5e', 'CAT5e'],
  ['cat6', 'CAT6'],
  ['cat6a', 'CAT6a'],
  ['cat7', 'CAT7'],
  ['cat7a', 'CAT7a'],
  ['cat8', 'CAT8'],
  ['dac-active', 'Direct Attach Copper (Active)'],
  ['dac-passive', 'Direct Attach Copper (Passive)'],
  ['mrj21-trunk', 'MRJ21 Trunk'],
  ['coaxial', 'Coaxial'],
  ['mmf', 'Multimode Fiber'],
  ['mmf-om1', 'Multimode Fiber (OM1)'],
  ['mmf-om2', 'Multimode Fiber (OM2)'],
  ['mmf-om3', 'Multimode Fiber (OM3)'],
  ['mmf-om4', 'Multimode Fiber (OM4)'],
  ['mmf-om5', 'Multimode Fiber (OM5)'],
  ['smf', 'Singlemode Fiber'],
  ['smf-os1', 'Singlemode Fiber (OS1)'],
  ['smf-os2', 'Singlemode Fiber (OS2)'],
  ['aoc', 'Active Optical Cabling (AOC)'],
  ['power', 'Power'],
  ['other', 'Other'],
] as const;

export const CABLE_LENGTH_UNITS = [
  ['km', 'Kilometers'],
  ['m', 'Meters'],
  ['cm', 'Centimeters'],
  ['mi', 'Miles'],
  ['ft', 'Feet'],
  ['in', 'Inches'],
] as const;

/** Meters per unit, for the length a cable sorts by. */
export const METERS_PER_UNIT: Record<string, number> = { km: 1000, m: 1, cm: 0.01, mi: 1609.344, ft: 0.3048, in: 0.0254 };

export const CABLE_STATUSES = ['Connected', 'Planned', 'Decommissioning'] as const;

/** Software, controllers, redundancy groups and virtual device contexts (Nautobot 2.4's choices and default statuses). */
export const HASHING_ALGORITHMS = [
  ['md5', 'MD5'],
  ['sha1', 'SHA1'],
  ['sha224', 'SHA224'],
  ['sha384', 'SHA384'],
  ['sha256', 'SHA256'],
  ['sha512', 'SHA512'],
  ['sha3', 'SHA3'],
  ['blake2', 'BLAKE2'],
  ['blake3', 'BLAKE3'],
] as const;
export const FAILOVER_STRATEGIES = [
  ['', '(unspecified)'],
  ['active-active', 'Active/Active'],
  ['active-passive', 'Active/Passive'],
] as const;
export const REDUNDANCY_PROTOCOLS = [
  ['hsrp', 'HSRP'],
  ['vrrp', 'VRRP'],
  ['glbp', 'GLBP'],
  ['carp', 'CARP'],
] as const;
export const CONTROLLER_CAPABILITIES = [['wireless', 'Wireless']] as const;
export const SOFTWARE_STATUSES = ['Active', 'Extended Support', 'End-of-Life'] as const;
export const REDUNDANCY_GROUP_STATUSES = ['Planned', 'Staging', 'Active', 'Decommissioning', 'Retired'] as const;
export const VDC_STATUSES = ['Offline', 'Active', 'Planned'] as const;
