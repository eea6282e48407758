import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deliverWebhook, parseHeaders, renderInSandbox, type WebhookContext, type WebhookTarget } from './deliver';
import { pythonTimestamp } from '../change-log/snapshots';
import { resolveWebhookUrl, validateWebhookUrlFormat, type WebhookUrlPolicy } from './url-policy';

const policy = (p: Partial<WebhookUrlPolicy> = {}): WebhookUrlPolicy => ({ schemes: ['http', 'https'], allowedHosts: [], blockedNetworks: [], allowedNetworks: [], ...p });
const refused = (url: string, p?: Partial<WebhookUrlPolicy>) => {
  try {
    validateWebhookUrlFormat(url, policy(p));
  } catch (e) {
    return (e as Error).message;
  }
  return null;
};

describe('webhook URL policy', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://127.1/hook',
    'http://2130706433/hook',
    'http://0x7f.0.0.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://255.255.255.255/hook',
    'http://192.0.2.10/hook',
  ])('refuses %s always', (url) => {
    expect(refused(url)).toMatch(/is not permitted \(resolves to a reserved\/loopback\/link-local address\)\.$/);
    expect(refused(url, { allowedHosts: ['*'] })).not.toBeNull();
  });

  it('takes names and public or private addresses, and the schemes allowed only', () => {
    expect(refused('https://hooks.example.com/x')).toBeNull();
    expect(refused('http://10.1.2.3:8080/x')).toBeNull();
    expect(refused('ftp://hooks.example.com/x')).toBe("Webhook URL scheme 'ftp' is not permitted; allowed schemes are: http, https.");
    expect(refused('http://hooks.example.com/x', { schemes: ['https'] })).toBe("Webhook URL scheme 'http' is not permitted; allowed schemes are: https.");
    expect(refused('')).toBe('Webhook URL is required.');
    expect(refused('hooks.example.com/x')).toBe('Enter a valid URL.');
    expect(refused('http://user:pw@hooks.example.com/x')).toBe('Enter a valid URL.');
  });

  it('blocks the operator\'s networks unless the host is allow-listed, and lets allowed networks through', () => {
    expect(refused('http://10.1.2.3/x', { blockedNetworks: ['10.0.0.0/8'] })).toBe("Webhook URL host '10.1.2.3' is not permitted. Add the host to WEBHOOK_ALLOWED_HOSTS if this target is intentional.");
    expect(refused('http://10.1.2.3/x', { blockedNetworks: ['10.0.0.0/8'], allowedHosts: ['10.1.2.3'] })).toBeNull();
    expect(refused('http://127.0.0.1:9000/x', { allowedNetworks: ['127.0.0.1/32'] })).toBeNull();
    expect(refused('http://127.0.0.2:9000/x', { allowedNetworks: ['127.0.0.1/32'] })).not.toBeNull();
  });

  it('checks every address a name resolves to when sending, and pins the first', async () => {
    const resolve = (async () => [
      { address: '203.0.114.5', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ]) as never;
    await expect(resolveWebhookUrl('http://rebind.example.com/x', policy(), resolve)).rejects.toThrow("Webhook URL host 'rebind.example.com' is not permitted");
    const ok = await resolveWebhookUrl('http://ok.example.com/x', policy(), (async () => [{ address: '203.0.114.5', family: 4 }]) as never);
    expect(ok.address).toBe('203.0.114.5');
    await expect(resolveWebhookUrl('http://missing.example.com/x', policy(), (async () => Promise.reject(new Error('ENOTFOUND'))) as never)).rejects.toThrow(
      "Unable to resolve webhook host 'missing.example.com'.",
    );
  });
});

describe('webhook delivery', () => {
  let server: http.Server;
  let port: number;
  let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }[] = [];
  let answer = 200;
  const timers: NodeJS.Timeout[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
        if (answer === 302) res.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' }).end();
        else if (answer === 0) timers.push(setTimeout(() => res.writeHead(200).end(), 2000));
        else res.writeHead(answer).end(answer >= 400 ? 'nope' : 'ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    timers.forEach(clearTimeout);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen = [];
    answer = 200;
  });

  const hook = (o: Partial<WebhookTarget> = {}): WebhookTarget => ({
    name: 'h',
    payload_url: `http://127.0.0.1:${port}/hook`,
    http_method: 'POST',
    http_content_type: 'application/json',
    additional_headers: '',
    body_template: '',
    secret: '',
    ssl_verification: true,
    ca_file_path: '',
    ...o,
  });
  const context: WebhookContext = {
    event: 'created',
    timestamp: pythonTimestamp(new Date('2026-11-27T08:40:00.123Z')),
    model: 'location',
    username: 'admin',
    request_id: 'f0c5d2e4-0000-4000-8000-000000000001',
    data: { id: 'x', name: 'AMS1' },
    snapshots: { prechange: null, postchange: { name: 'AMS1' }, differences: { removed: null, added: { name: 'AMS1' } } },
  };
  const opts = { policy: policy({ allowedNetworks: ['127.0.0.1/32'] }), render: (tpl: string, c: Record<string, unknown>) => tpl.replace('{{ model }}', String(c.model)), timeoutMs: 500 };

  it('posts the change as JSON, signed with HMAC-SHA512 of the exact body', async () => {
    const out = await deliverWebhook(hook({ secret: 's3cret', additional_headers: 'X-Model: {{ model }}\nX-Two: a:b' }), context, opts);
    expect(out).toEqual({ ok: true, status: 200, message: 'Status 200 returned, webhook successfully processed.', retry: false });
    expect(seen).toHaveLength(1);
    const [r] = seen;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/hook');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['x-model']).toBe('location');
    expect(r.headers['x-two']).toBe('a:b');
    expect(JSON.parse(r.body.toString())).toEqual(context);
    expect(r.headers['x-hook-signature']).toBe(createHmac('sha512', 's3cret').update(r.body).digest('hex'));
    expect(context.timestamp).toBe('2026-11-27 08:40:00.123000+00:00');
  });

  it('renders a body template and sends no signature without a secret', async () => {
    await deliverWebhook(hook({ body_template: 'model={{ model }}', http_method: 'PUT', http_content_type: 'text/plain' }), context, opts);
    expect(seen[0].method).toBe('PUT');
    expect(seen[0].body.toString()).toBe('model=location');
    expect(seen[0].headers['x-hook-signature']).toBeUndefined();
  });

  it('renders templates in the sandbox: the context, filters, and a failure as a refusal to send', async () => {
    const sandbox = { ...opts, render: renderInSandbox };
    await deliverWebhook(hook({ body_template: '{{ event }} {{ data.name | upper }} by {{ username }}', additional_headers: 'X-Event: {{ event }}' }), context, sandbox);
    expect(seen[0].body.toString()).toBe('created AMS1 by admin');
    expect(seen[0].headers['x-event']).toBe('created');
    expect(await deliverWebhook(hook({ body_template: '{% for i in (1..100000000) %}x{% endfor %}' }), context, sandbox)).toMatchObject({ ok: false, retry: false, message: expect.stringMatching(/^Error rendering the request: /) });
    expect(seen).toHaveLength(1);
  });

  it('says what failed and whether a retry may help; never follows a redirect', async () => {
    answer = 503;
    expect(await deliverWebhook(hook(), context, opts)).toEqual({ ok: false, status: 503, message: "Status 503 returned with content 'nope', webhook FAILED to process.", retry: true });
    answer = 400;
    expect((await deliverWebhook(hook(), context, opts)).retry).toBe(false);
    answer = 302;
    const out = await deliverWebhook(hook(), context, opts);
    expect(out).toMatchObject({ ok: false, status: 302, retry: false });
    expect(seen).toHaveLength(3);
    answer = 0;
    expect(await deliverWebhook(hook(), context, opts)).toMatchObject({ ok: false, status: null, retry: true, message: expect.stringMatching(/no answer within 500 ms/) });
  });

  it('refuses, without sending, a URL the policy blocks and headers that do not parse', async () => {
    expect(await deliverWebhook(hook(), context, { ...opts, policy: policy() })).toMatchObject({ ok: false, status: null, retry: false, message: expect.stringMatching(/^Blocked by the webhook URL policy: /) });
    expect(await deliverWebhook(hook({ additional_headers: 'no colon here' }), context, opts)).toMatchObject({ ok: false, retry: false, message: expect.stringMatching(/not in the form "Name: Value"/) });
    expect(seen).toHaveLength(0);
    expect(() => parseHeaders('Bad Name: x')).toThrow('"Bad Name" is not a valid header name.');
  });
});
