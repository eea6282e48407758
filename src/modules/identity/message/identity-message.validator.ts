import { Checker, isObj, MESSAGES, storable } from './message-checker';
import { isHttpUrl } from './message-formats';
import { emptyAttributes, sorAttributes } from './message-sections';
import { IdentityMessage, MESSAGE_OBJECT_TYPE, MESSAGE_VERSION, ValidationResult } from './message-types';

/**
 * The external identity message (../shared/spec/external-identity-message.md), validated
 * strictly and completely: every error is reported at once, keyed by its JSON path
 * (`sorAttributes.roles[1].status`). Members the spec does not name are kept by the caller in
 * the stored message and ignored here. A pure function: no database, no clock.
 *
 * The top level is checked here; `sorAttributes` and its roles in message-sections.ts, with
 * the checker of message-checker.ts and the formats of message-formats.ts.
 */

export * from './message-types';
export { MESSAGES } from './message-checker';
export { E164, isAbsoluteUri, isHttpUrl, parseRfc3339 } from './message-formats';

/** Validates a parsed JSON body as an external identity message; collects every error. */
export function validateIdentityMessage(body: unknown): ValidationResult {
  const c = new Checker();
  if (!isObj(body)) {
    return { ok: false, errors: { non_field_errors: [body === null || body === undefined ? 'No data provided.' : MESSAGES.object(body)] } };
  }
  storable(c, body, '', 0);
  let meta: IdentityMessage['meta'];
  const m = c.object(body, 'meta', 'meta', false);
  if (m) {
    const version = c.constant(m, 'version', 'meta.version', MESSAGE_VERSION);
    const objectType = c.constant(m, 'objectType', 'meta.objectType', MESSAGE_OBJECT_TYPE);
    if (version && objectType) meta = { version, objectType };
  }
  const returnUrl = c.formatted(body, 'returnUrl', 'returnUrl', false, isHttpUrl, MESSAGES.httpUrl);
  const sor = c.object(body, 'sorAttributes', 'sorAttributes', true);
  const attrs = sor ? sorAttributes(c, sor) : emptyAttributes();
  if (Object.keys(c.errors).length) return { ok: false, errors: c.errors };
  return { ok: true, message: { ...(meta ? { meta } : {}), ...(returnUrl ? { returnUrl } : {}), sorAttributes: attrs } };
}
