/**
 * The external identity message (../shared/spec/external-identity-message.md) as the validator
 * returns it: its members, typed, and the constants the stored columns impose.
 */

export const ROLE_CODES = ['A', 'D', 'D2', 'GP', 'S'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];

export const MESSAGE_VERSION = '1.0.0';
export const MESSAGE_OBJECT_TYPE = 'externalIdentity';
/** Columns that hold these values are this wide. */
export const MAX_STORED_LENGTH = 255;
export const MAX_EMAIL_LENGTH = 254;
/** Deepest nesting of a message, unknown members included (the spec's own members reach 5). */
export const MAX_NESTING = 32;

export interface Address {
  country?: string;
  language?: string;
  locality?: string;
  postalCode?: string;
  region?: string;
  room?: string;
  streetAddress?: string;
  type?: string;
}
export interface Adhoc {
  tag: string;
  value?: string;
}
export interface EmailAddress {
  mail: string;
  type?: string;
  verified?: boolean;
}
export interface Identifier {
  identifier: string;
  type?: string;
}
export interface Name {
  given: string;
  family?: string;
  language?: string;
  middle?: string;
  prefix?: string;
  suffix?: string;
  type?: string;
}
export interface TelephoneNumber {
  number: string;
  type?: string;
}
export interface Url {
  url: string;
  type?: string;
}
export interface Role {
  affiliation: string;
  roleIdentifier: string;
  status: RoleCode;
  addresses: Address[];
  adhoc: Adhoc[];
  department?: string;
  managerIdentifier?: string;
  organization?: string;
  rank?: number;
  sponsorIdentifier?: string;
  telephoneNumbers: TelephoneNumber[];
  title?: string;
  validFrom?: Date;
  validThrough?: Date;
}
export interface SorAttributes {
  meta?: { id: string };
  addresses: Address[];
  adhoc: Adhoc[];
  dateOfBirth?: string;
  emailAddresses: EmailAddress[];
  identifiers: Identifier[];
  names: Name[];
  telephoneNumbers: TelephoneNumber[];
  urls: Url[];
  roles: Role[];
}
export interface IdentityMessage {
  meta?: { version: string; objectType: string };
  returnUrl?: string;
  sorAttributes: SorAttributes;
}

export type MessageErrors = Record<string, string[]>;
export type ValidationResult = { ok: true; message: IdentityMessage } | { ok: false; errors: MessageErrors };
