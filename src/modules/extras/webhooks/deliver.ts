import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { templates } from '../../../core/template/template';
import { resolveWebhookUrl, WebhookUrlError, type WebhookUrlPolicy } from './url-policy';
import type { Snapshots } from '../change-log/snapshots';

/** What a delivery needs of a webhook row. */
export interface WebhookTarget {
  name: string;
  payload_url: string;
  http_method: string;
  http_content_type: string;
  additional_headers: string;
  body_template: string;
  secret: string;
  ssl_verification: boolean;
  ca_file_path: string;
}

/** The context a body or header template sees, and the default body (the reference's keys). */
export interface WebhookContext {
  event: 'created' | 'updated' | 'deleted';
  timestamp: string;
  model: string;
  username: string;
  request_id: string;
  data: unknown;
  snapshots: Snapshots;
}

export type RenderTemplate = (template: string, context: Record<string, unknown>) => string;

/** Renders a header or body template in the sandbox; a template that fails is an error the delivery log names. */
export const renderInSandbox: RenderTemplate = (source, context) => {
  const out = templates.render(templates.compile(source), context);
  if (out.error !== undefined) throw new Error(out.error);
  return out.value;
};

export interface DeliveryOutcome {
  ok: boolean;
  /** The receiver's status code; null when no response came. */
  status: number | null;
  /** One line for the delivery log. */
  message: string;
  /** Whether trying again may help (network errors, 5xx, 429), as opposed to a bad webhook. */
  retry: boolean;
}

/** HMAC-SHA512 of the exact body bytes with the webhook's secret, hex: the `X-Hook-Signature` header. */
export function signature(body: Buffer, secret: string): string {
  return createHmac('sha512', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** `Name: Value` lines (after rendering); a line without a colon is an error the log names. */
export function parseHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const i = line.indexOf(':');
    if (i <= 0) throw new Error(`Header line "${line.slice(0, 80)}" is not in the form "Name: Value".`);
    const name = line.slice(0, i).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error(`"${name.slice(0, 80)}" is not a valid header name.`);
    out[name] = line.slice(i + 1).trim();
  }
  return out;
}

const MAX_LOGGED_BODY = 500;

/**
 * Sends one webhook request: checks the URL against the policy (resolving the name and pinning
 * the connection to the address checked), renders headers and body, signs the body, never
 * follows a redirect, and gives up after `timeoutMs`. Never throws: the outcome says what happened.
 */
export async function deliverWebhook(
  hook: WebhookTarget,
  context: WebhookContext,
  opts: { policy: WebhookUrlPolicy; render: RenderTemplate; timeoutMs: number },
): Promise<DeliveryOutcome> {
  let target: Awaited<ReturnType<typeof resolveWebhookUrl>>;
  try {
    target = await resolveWebhookUrl(hook.payload_url, opts.policy);
  } catch (e) {
    const msg = e instanceof WebhookUrlError ? e.message : 'Invalid webhook URL.';
    return { ok: false, status: null, message: `Blocked by the webhook URL policy: ${msg}`, retry: /Unable to resolve/.test(msg) };
  }
  let headers: Record<string, string>;
  let body: Buffer;
  try {
    headers = { 'Content-Type': hook.http_content_type, ...(hook.additional_headers ? parseHeaders(opts.render(hook.additional_headers, context as never)) : {}) };
    body = Buffer.from(hook.body_template ? opts.render(hook.body_template, context as never) : JSON.stringify(context), 'utf8');
  } catch (e) {
    return { ok: false, status: null, message: `Error rendering the request: ${(e as Error).message}`, retry: false };
  }
  if (hook.secret) headers['X-Hook-Signature'] = signature(body, hook.secret);
  headers['Content-Length'] = String(body.length);
  let ca: Buffer | undefined;
  if (target.url.protocol === 'https:' && hook.ssl_verification && hook.ca_file_path) {
    try {
      ca = await readFile(hook.ca_file_path);
    } catch {
      return { ok: false, status: null, message: 'The CA certificate file cannot be read.', retry: false };
    }
  }
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const mod = target.url.protocol === 'https:' ? https : http;
  return new Promise<DeliveryOutcome>((resolve) => {
    const req = mod.request(
      target.url,
      {
        method: hook.http_method,
        headers,
        lookup: pinned,
        timeout: opts.timeoutMs,
        ...(target.url.protocol === 'https:' ? { rejectUnauthorized: hook.ssl_verification, ...(ca ? { ca } : {}) } : {}),
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size < MAX_LOGGED_BODY) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8').slice(0, MAX_LOGGED_BODY);
          if (status >= 200 && status < 300) resolve({ ok: true, status, message: `Status ${status} returned, webhook successfully processed.`, retry: false });
          else resolve({ ok: false, status, message: `Status ${status} returned with content '${text}', webhook FAILED to process.`, retry: status >= 500 || status === 429 || status === 408 });
        });
        res.on('error', () => resolve({ ok: false, status, message: 'The response was cut off.', retry: true }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (e) => resolve({ ok: false, status: null, message: `Request to ${target.url.host} failed: ${e.message}`, retry: true }));
    req.end(body);
  });
}
