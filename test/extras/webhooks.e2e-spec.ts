import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eachDatabase } from '../../src/core/testing/harness';

/** A receiver on loopback: records each request; answers from a script of status codes (then 200). */
class Receiver {
  seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
  script: number[] = [];
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      this.seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(this.script.shift() ?? 200).end('ok');
    });
  });
  port = 0;
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }
  async stop() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
  /** Waits for the n-th request (1-based). */
  async request(n: number) {
    for (let i = 0; i < 300 && this.seen.length < n; i++) await new Promise((r) => setTimeout(r, 50));
    if (this.seen.length < n) throw new Error(`the receiver got ${this.seen.length} requests, not ${n}`);
    return this.seen[n - 1];
  }
}

/**
 * Webhooks as Nautobot 2.4 validates them: at least one action, the URL policy against server-side
 * request forgery (the reference's messages), no two webhooks for one action, type and URL, and a
 * CA file only with SSL verification.
 */
eachDatabase(
  'webhooks',
  (t) => {
    const base = { content_types: ['dcim.location'], type_create: true, payload_url: 'https://hooks.example.com/a' };
    const refuse = async (body: object) => (await t().post('/api/extras/webhooks/', body).expect(400)).body;

    it('needs an action, a URL the policy allows, and a CA file only with verification', async () => {
      expect(await refuse({ ...base, name: 'none', type_create: false })).toEqual({ non_field_errors: ['You must select at least one type: create, update, and/or delete.'] });
      expect(await refuse({ ...base, name: 'meta', payload_url: 'http://169.254.169.254/latest/' })).toEqual({
        payload_url: ["Webhook URL host '169.254.169.254' is not permitted (resolves to a reserved/loopback/link-local address)."],
      });
      expect(await refuse({ ...base, name: 'loop', payload_url: 'http://[::1]:8080/' })).toEqual({
        payload_url: ["Webhook URL host '[::1]' is not permitted (resolves to a reserved/loopback/link-local address)."],
      });
      expect(await refuse({ ...base, name: 'ftp', payload_url: 'ftp://hooks.example.com/' })).toEqual({ payload_url: ["Webhook URL scheme 'ftp' is not permitted; allowed schemes are: http, https."] });
      expect(await refuse({ ...base, name: 'blocked', payload_url: 'http://10.0.0.5/' })).toEqual({
        payload_url: ["Webhook URL host '10.0.0.5' is not permitted. Add the host to WEBHOOK_ALLOWED_HOSTS if this target is intentional."],
      });
      expect(await refuse({ ...base, name: 'ca', ssl_verification: false, ca_file_path: '/etc/ssl/ca.pem' })).toEqual({
        ca_file_path: ['Do not specify a CA certificate file if SSL verification is disabled.'],
      });
      expect(await refuse({ ...base, name: 'types', content_types: ['users.token'] })).toHaveProperty('content_types');
      // The operator's allowed network passes even the built-in list.
      const local = (await t().post('/api/extras/webhooks/', { ...base, name: 'local', payload_url: 'http://127.0.0.1:9/' }).expect(201)).body;
      expect(local).toMatchObject({ name: 'local', http_method: { value: 'POST', label: 'POST' }, http_content_type: 'application/json', enabled: true, ssl_verification: true, secret: '', content_types: ['dcim.location'] });
      await t().del(`/api/extras/webhooks/${local.id}/`).expect(204);
      expect((await t().get('/api/extras/webhooks/?name=local').expect(200)).body.count).toBe(0);
    });

    it('refuses a second webhook for the same action, type and URL, naming each conflict', async () => {
      const a = (await t().post('/api/extras/webhooks/', { ...base, name: 'first', content_types: ['dcim.location', 'tenancy.tenant'], type_update: true }).expect(201)).body;
      expect(await refuse({ ...base, name: 'second', content_types: ['tenancy.tenant', 'dcim.device'], type_update: true, type_delete: true })).toEqual({
        type_create: ['A webhook already exists for create on tenancy | tenant to URL https://hooks.example.com/a'],
        type_update: ['A webhook already exists for update on tenancy | tenant to URL https://hooks.example.com/a'],
      });
      // Another action, another URL or another type is fine; so is saving the first again.
      const b = (await t().post('/api/extras/webhooks/', { ...base, name: 'second', type_create: false, type_delete: true }).expect(201)).body;
      await t().patch(`/api/extras/webhooks/${a.id}/`, { description: undefined, enabled: false }).expect(200);
      expect((await t().patch(`/api/extras/webhooks/${b.id}/`, { type_update: true }).expect(400)).body).toEqual({
        type_update: ['A webhook already exists for update on dcim | location to URL https://hooks.example.com/a'],
      });
      expect((await t().get('/api/extras/webhooks/?content_types=tenancy.tenant').expect(200)).body.results.map((w: any) => w.name)).toEqual(['first']);
      expect((await t().get('/api/extras/webhooks/?type_delete=true').expect(200)).body.results.map((w: any) => w.name)).toEqual(['second']);
      expect((await t().get('/api/extras/webhooks/?q=hooks.example').expect(200)).body.results.map((w: any) => w.name)).toEqual(['first', 'second']);
      await t().del('/api/extras/webhooks/', [{ id: a.id }, { id: b.id }]).expect(204);
    });
  },
  { env: { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_ADDITIONAL_BLOCKED_NETWORKS: '10.0.0.0/8' } },
);

/**
 * Deliveries: after the write commits, the worker sends what the reference sends (the change as
 * JSON, signed), retries a receiver that fails for now, gives up on one that refuses, and logs
 * each delivery as a job result; a write that fails sends nothing.
 */
eachDatabase(
  'webhook deliveries',
  (t) => {
    const receiver = new Receiver();
    let hook: any;
    beforeAll(async () => {
      await receiver.start();
      hook = (
        await t()
          .post('/api/extras/webhooks/', {
            name: 'Tenants out',
            content_types: ['tenancy.tenant'],
            type_create: true,
            type_update: true,
            type_delete: true,
            payload_url: `http://127.0.0.1:${receiver.port}/hook`,
            secret: 'shh',
            additional_headers: 'X-Event: {{ event }}',
          })
          .expect(201)
      ).body;
    });
    afterAll(() => receiver.stop());
    const results = async () => (await t().get('/api/extras/job-results/?name=Webhook%20Delivery&limit=1000').expect(200)).body.results;
    const finished = async (n: number) => {
      for (let i = 0; i < 300; i++) {
        const done = (await results()).filter((r: any) => ['SUCCESS', 'FAILURE'].includes(r.status.value));
        if (done.length >= n) return done;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`fewer than ${n} deliveries finished`);
    };

    it('sends each change after it commits: the data, the snapshots, signed; nothing for a failed write', async () => {
      const created = await t().post('/api/tenancy/tenants/', { name: 'Hooked' }).set('X-Request-ID', '0b7c7d38-8a0e-4f4c-9f55-2c2f1f0a0001').expect(201);
      const first = await receiver.request(1);
      expect(first.method).toBe('POST');
      expect(first.url).toBe('/hook');
      expect(first.headers['content-type']).toBe('application/json');
      expect(first.headers['x-event']).toBe('created');
      expect(first.headers['x-hook-signature']).toBe(createHmac('sha512', 'shh').update(first.body).digest('hex'));
      const body = JSON.parse(first.body);
      expect(body).toMatchObject({ event: 'created', model: 'tenant', username: 'admin', request_id: '0b7c7d38-8a0e-4f4c-9f55-2c2f1f0a0001' });
      expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00$/);
      expect(body.data).toMatchObject({ id: created.body.id, name: 'Hooked', object_type: 'tenancy.tenant' });
      expect(body.snapshots).toMatchObject({ prechange: null, postchange: { name: 'Hooked' }, differences: { removed: null, added: { name: 'Hooked' } } });

      await t().patch(`/api/tenancy/tenants/${created.body.id}/`, { description: 'now described' }).expect(200);
      const second = JSON.parse((await receiver.request(2)).body);
      expect(second.event).toBe('updated');
      expect(second.snapshots.prechange).toMatchObject({ description: '' });
      expect(second.snapshots.differences).toEqual({ added: { description: 'now described' }, removed: { description: '' } });

      // Refused writes send nothing (a bulk create that fails in its second object included).
      await t().post('/api/tenancy/tenants/', [{ name: 'Fine' }, { name: 'Hooked' }]).expect(400);
      await t().del(`/api/tenancy/tenants/${created.body.id}/`).expect(204);
      const third = JSON.parse((await receiver.request(3)).body);
      expect(third).toMatchObject({ event: 'deleted', data: { name: 'Hooked' }, snapshots: { postchange: null, prechange: { description: 'now described' } } });
      await finished(3);
      expect(receiver.seen).toHaveLength(3);
      const logged = await results();
      expect(logged.map((r: any) => r.status.value)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    });

    it('retries a receiver that fails for now, gives up on one that refuses, and logs each attempt', async () => {
      receiver.seen = [];
      receiver.script = [503, 200, 400];
      await t().post('/api/tenancy/tenants/', { name: 'Retried' }).expect(201);
      await receiver.request(2);
      const [retried] = await finished(4);
      expect(retried.status.value).toBe('SUCCESS');
      const lines = (await t().get(`/api/extras/job-results/${retried.id}/logs/`).expect(200)).body;
      const messages = (Array.isArray(lines) ? lines : lines.results).map((l: any) => `${l.log_level.value ?? l.log_level}: ${l.message}`);
      expect(messages).toEqual([
        expect.stringMatching(/^warning: Status 503 returned with content 'ok', webhook FAILED to process\. Attempt 1 of 5; trying again in 0 s\.$/),
        'success: tenant created: Status 200 returned, webhook successfully processed.',
      ]);

      await t().post('/api/tenancy/tenants/', { name: 'Refused' }).expect(201);
      await receiver.request(3);
      const [refused] = await finished(5);
      expect(refused.status.value).toBe('FAILURE');
      expect(receiver.seen).toHaveLength(3);
    });

    it('cannot be run by hand', async () => {
      const job = (await t().get('/api/extras/jobs/?name=Webhook%20Delivery').expect(200)).body.results[0];
      expect(job).toMatchObject({ hidden: true, installed: true });
      expect((await t().post(`/api/extras/jobs/${job.id}/run/`, { data: { webhook: hook.id, context: {} } }).expect(405)).body).toEqual({
        detail: 'This job is run by netkeel itself and cannot be run through the API',
      });
    });
  },
  { env: { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', JOBS_POLL_INTERVAL_MS: '100', WEBHOOK_RETRY_SECONDS: '0' } },
);
