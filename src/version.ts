import pkg from '../package.json';

export const NETKEEL_VERSION: string = pkg.version;
/** The Nautobot release whose REST API netkeel implements. */
export const NAUTOBOT_VERSION = '2.4.0';
