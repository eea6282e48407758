import { eachDatabase } from '../../src/core/testing/harness';

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
