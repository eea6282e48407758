import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Secrets, secrets groups and external integrations as Nautobot 2.4 has them, and what the
 * contract cannot know: each provider's parameters, the check endpoint and its messages, what
 * an attacker allowed to create secrets still cannot read (the server's settings, files outside
 * SECRETS_FILE_ROOT, through links, FIFOs or huge files; no oracle of what exists), the value
 * never shown anywhere, and the on-delete rules of the fields other models gained.
 */
const root = mkdtempSync(join(tmpdir(), 'netkeel-secrets-'));
const outside = mkdtempSync(join(tmpdir(), 'netkeel-outside-'));
writeFileSync(join(root, 'snmp'), '  community-VALUE-1  \n');
mkdirSync(join(root, 'nested'));
writeFileSync(join(root, 'nested', 'token'), 'token-VALUE-2');
writeFileSync(join(outside, 'private'), 'outside-VALUE-3');
symlinkSync(join(outside, 'private'), join(root, 'escape'));
symlinkSync(outside, join(root, 'escape-dir'));
writeFileSync(join(root, 'huge'), 'x'.repeat(70 * 1024));
execFileSync('mkfifo', [join(root, 'fifo')]);

const VALUE = 'env-VALUE-0';

eachDatabase(
  'secrets',
  (t) => {
    const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
    const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
    const envSecret = (name: string, variable: string) => post('/api/extras/secrets/', { name, provider: 'environment-variable', parameters: { variable } });
    const fileSecret = (name: string, path: string) => post('/api/extras/secrets/', { name, provider: 'text-file', parameters: { path } });
    const check = async (id: string, token?: string) => (await t().get(`/api/extras/secrets/${id}/check/`, token).expect(200)).body;

    it("checks each provider's parameters, naming the parameter", async () => {
      expect(await refuse('/api/extras/secrets/', { name: 'p1', provider: 'vault' })).toEqual({ provider: ['No registered provider "vault" is available'] });
      expect(await refuse('/api/extras/secrets/', { name: 'p2', provider: 'environment-variable' })).toEqual({ parameters: ['The "variable" parameter is mandatory!'] });
      expect(await refuse('/api/extras/secrets/', { name: 'p3', provider: 'environment-variable', parameters: { variable: 5 } })).toEqual({ parameters: ['The "variable" parameter must be a string.'] });
      expect(await refuse('/api/extras/secrets/', { name: 'p4', provider: 'environment-variable', parameters: { varaible: 'X' } })).toEqual({
        parameters: ['The "variable" parameter is mandatory!', 'Unknown parameter "varaible" for provider "environment-variable" (it takes "variable").'],
      });
      expect(await refuse('/api/extras/secrets/', { name: 'p5', provider: 'text-file', parameters: ['/etc/passwd'] })).toEqual({ parameters: ['Parameters must be an object naming "path".'] });
      expect(await refuse('/api/extras/secrets/', { name: 'p6', provider: 'text-file', parameters: { path: 'etc/passwd' } })).toEqual({ parameters: ['Path must be an absolute path, not a relative one'] });
      expect(await refuse('/api/extras/secrets/', { name: 'p7', provider: 'text-file', parameters: { path: `${root}/../etc/passwd` } })).toEqual({ parameters: ['Illegal character sequence in path'] });
      expect(await refuse('/api/extras/secrets/', { name: 'p8', provider: 'text-file', parameters: {} })).toEqual({ parameters: ['The "path" parameter is mandatory!'] });
      // A change of provider is checked against the parameters it keeps.
      const s = await envSecret('p9', 'NETKEEL_SECRET_TEST');
      expect((await t().patch(`/api/extras/secrets/${s.id}/`, { provider: 'text-file' }).expect(400)).body).toEqual({
        parameters: ['The "path" parameter is mandatory!', 'Unknown parameter "variable" for provider "text-file" (it takes "path").'],
      });
      await t().patch(`/api/extras/secrets/${s.id}/`, { provider: 'text-file', parameters: { path: '/run/x' } }).expect(200);
      expect((await t().get('/api/extras/secrets/?name=p1').expect(200)).body.count).toBe(0);
    });

    it('tells whether a value can be read, as the reference words it, and never shows the value', async () => {
      const env = await envSecret('env ok', 'NETKEEL_SECRET_TEST');
      const unset = await envSecret('env unset', 'NETKEEL_SECRET_UNSET');
      const file = await fileSecret('file ok', join(root, 'snmp'));
      const nested = await fileSecret('file nested', join(root, 'nested', 'token'));
      const missing = await fileSecret('file missing', join(root, 'nope'));
      expect(await check(env.id)).toEqual({ result: true, message: 'Passed' });
      expect(await check(file.id)).toEqual({ result: true, message: 'Passed' });
      expect(await check(nested.id)).toEqual({ result: true, message: 'Passed' });
      expect(await check(unset.id)).toEqual({
        result: false,
        message: 'SecretValueNotFoundError: Secret "env unset" (provider "EnvironmentVariableSecretsProvider"): Undefined environment variable "NETKEEL_SECRET_UNSET"!',
      });
      expect(await check(missing.id)).toEqual({
        result: false,
        message: `SecretValueNotFoundError: Secret "file missing" (provider "TextFileSecretsProvider"): File "${join(root, 'nope')}" not found!`,
      });
      // By natural key too, as every detail URL.
      expect(await check('env%20ok')).toEqual({ result: true, message: 'Passed' });
      await t().get('/api/extras/secrets/00000000-0000-4000-8000-000000000000/check/').expect(404);

      const group = await post('/api/extras/secrets-groups/', { name: 'Shown nowhere' });
      await post('/api/extras/secrets-groups-associations/', { secrets_group: group.id, secret: env.id, access_type: 'SSH', secret_type: 'password' });
      await post('/api/extras/secrets-groups-associations/', { secrets_group: group.id, secret: file.id, access_type: 'SNMP', secret_type: 'secret' });
      const bodies = await Promise.all([
        t().get('/api/extras/secrets/?depth=2'),
        t().get(`/api/extras/secrets/${env.id}/`),
        t().get('/api/extras/secrets/').set('Accept', 'text/csv'),
        t().get('/api/extras/secrets-groups/?depth=3'),
        t().get('/api/extras/secrets-groups-associations/?depth=2').set('Accept', 'text/csv'),
        t().get(`/api/extras/secrets/${file.id}/check/`),
      ]);
      for (const r of bodies) {
        expect(r.status).toBe(200);
        for (const v of [VALUE, 'community-VALUE-1', 'token-VALUE-2']) expect(r.text).not.toContain(v);
      }
    });

    it("never reads netkeel's own settings, whatever SECRETS_ENV_VARIABLES lists, nor says whether a refused variable is set", async () => {
      // SECRET_KEY is listed in SECRETS_ENV_VARIABLES for this suite and is set: still refused.
      for (const variable of ['SECRET_KEY', 'DATABASE_URL', 'SUPERUSER_API_TOKEN', 'SUPERUSER_PASSWORD', 'secret_key', 'OTHER_SET', 'OTHER_UNSET', 'NETKEEL_SECRET_BAD-NAME']) {
        const s = await envSecret(`refused ${variable}`, variable);
        expect(await check(s.id)).toEqual({
          result: false,
          message: `SecretParametersError: Secret "refused ${variable}" (provider "EnvironmentVariableSecretsProvider"): Environment variable "${variable}" is not one that secrets may read (SECRETS_ENV_VARIABLES)`,
        });
      }
    });

    it('reads files under SECRETS_FILE_ROOT only: links are followed and judged where they lead; no FIFO, no huge file, no oracle outside', async () => {
      const refusedFile = (name: string, path: string) => ({
        result: false,
        message: `SecretParametersError: Secret "${name}" (provider "TextFileSecretsProvider"): File "${path}" is not under the directory that secrets may read (SECRETS_FILE_ROOT)`,
      });
      for (const [name, path] of [
        ['passwd', '/etc/passwd'],
        ['no such', '/etc/no-such-file-here'],
        ['outside', join(outside, 'private')],
        ['link out', join(root, 'escape')],
        ['dir link out', join(root, 'escape-dir', 'private')],
        ['prefix twin', `${root}-twin/snmp`],
      ] as const) {
        const s = await fileSecret(name, path);
        expect(await check(s.id)).toEqual(refusedFile(name, path));
      }
      const fifo = await fileSecret('fifo', join(root, 'fifo'));
      expect(await check(fifo.id)).toEqual({ result: false, message: `SecretValueNotFoundError: Secret "fifo" (provider "TextFileSecretsProvider"): File "${join(root, 'fifo')}" not found!` });
      const dir = await fileSecret('dir', join(root, 'nested'));
      expect((await check(dir.id)).result).toBe(false);
      const huge = await fileSecret('huge', join(root, 'huge'));
      expect(await check(huge.id)).toEqual({ result: false, message: `SecretProviderError: Secret "huge" (provider "TextFileSecretsProvider"): File "${join(root, 'huge')}" is larger than 65536 bytes` });
    });

    it('checks for whoever may view the secret: 403 without the permission, 404 outside the constraint', async () => {
      const mine = await envSecret('viewer visible', 'NETKEEL_SECRET_TEST');
      const other = await envSecret('viewer hidden', 'NETKEEL_SECRET_TEST');
      const viewer = await t().userWith('secret-viewer', [{ types: ['extras.secret'], actions: ['view'], constraints: { name: 'viewer visible' } }]);
      const stranger = await t().userWith('secret-stranger', [{ types: ['dcim.device'], actions: ['view'] }]);
      expect(await check(mine.id, viewer)).toEqual({ result: true, message: 'Passed' });
      await t().get(`/api/extras/secrets/${other.id}/check/`, viewer).expect(404);
      await t().get(`/api/extras/secrets/${mine.id}/check/`, stranger).expect(403);
      await t().get(`/api/extras/secrets/${mine.id}/check/`, null).expect(403);
    });

    it('holds one secret per access type and secret type in a group; the group lists its associations; filters by secret', async () => {
      const user = await envSecret('assoc user', 'NETKEEL_SECRET_USER');
      const pass = await envSecret('assoc pass', 'NETKEEL_SECRET_PASS');
      const group = await post('/api/extras/secrets-groups/', { name: 'Router logins' });
      const a = await post('/api/extras/secrets-groups-associations/', { secrets_group: group.id, secret: user.id, access_type: 'SSH', secret_type: 'username' });
      await post('/api/extras/secrets-groups-associations/', { secrets_group: group.id, secret: pass.id, access_type: 'SSH', secret_type: 'password' });
      // The same secret may serve the group again for another access type.
      await post('/api/extras/secrets-groups-associations/', { secrets_group: 'Router logins', secret: 'assoc user', access_type: 'Console', secret_type: 'username' });
      expect(await refuse('/api/extras/secrets-groups-associations/', { secrets_group: group.id, secret: pass.id, access_type: 'SSH', secret_type: 'username' })).toEqual({
        non_field_errors: ['The fields secrets_group, access_type, secret_type must make a unique set.'],
      });
      expect(a.display).toBe('Router logins: SSH username: assoc user');
      const shown = (await t().get(`/api/extras/secrets-groups/${group.id}/?depth=1`).expect(200)).body;
      expect(shown.secrets.map((s: any) => s.display)).toEqual(['Router logins: Console username: assoc user', 'Router logins: SSH password: assoc pass', 'Router logins: SSH username: assoc user']);
      const names = async (path: string) => (await t().get(path).expect(200)).body.results.map((r: any) => r.display);
      expect(await names('/api/extras/secrets-groups/?secrets=assoc%20pass')).toEqual(['Router logins']);
      expect(await names(`/api/extras/secrets-groups-associations/?secret_id=${pass.id}`)).toEqual(['Router logins: SSH password: assoc pass']);
      expect(await names('/api/extras/secrets-groups-associations/?secrets_group=Router%20logins&access_type=Console')).toEqual(['Router logins: Console username: assoc user']);
      // A secret deleted takes its associations along; so does a group.
      await t().del(`/api/extras/secrets/${user.id}/`).expect(204);
      expect(await names(`/api/extras/secrets-groups-associations/?secrets_group=${group.id}`)).toEqual(['Router logins: SSH password: assoc pass']);
      await t().del(`/api/extras/secrets-groups/${group.id}/`).expect(204);
      expect((await t().get(`/api/extras/secrets-groups-associations/?secret=${pass.id}`).expect(200)).body.count).toBe(0);
    });

    it("clears or protects the secrets group and external integration of other models, as the reference's on_delete says", async () => {
      const group = await post('/api/extras/secrets-groups/', { name: 'Shared credentials' });
      const maker = await post('/api/dcim/manufacturers/', { name: 'Cloudy' });
      const account = await post('/api/cloud/cloud-accounts/', { name: 'acct', account_number: '1', provider: maker.id, secrets_group: 'Shared credentials' });
      expect(account.secrets_group.id).toBe(group.id);
      const drg = await post('/api/dcim/device-redundancy-groups/', { name: 'pair', status: 'Active', secrets_group: group.id });
      const irg = await post('/api/dcim/interface-redundancy-groups/', { name: 'vrrp', status: 'Active', protocol: 'vrrp', secrets_group: group.id });
      expect((await t().get('/api/cloud/cloud-accounts/?secrets_group=Shared%20credentials').expect(200)).body.count).toBe(1);
      expect((await t().get(`/api/dcim/device-redundancy-groups/?secrets_group=${group.id}`).expect(200)).body.count).toBe(1);
      expect((await t().get('/api/dcim/interface-redundancy-groups/?secrets_group=Shared%20credentials').expect(200)).body.count).toBe(1);

      // A wireless network and an external integration protect the group.
      const network = await post('/api/wireless/wireless-networks/', { name: 'corp', ssid: 'corp', mode: 'Central', authentication: 'WPA2 Personal', secrets_group: group.id });
      const integration = await post('/api/extras/external-integrations/', { name: 'repo', remote_url: 'http://fileserver/images', secrets_group: group.id });
      expect(integration.display).toBe('repo (http://fileserver/images)');
      expect((await t().get('/api/wireless/wireless-networks/?secrets_group=Shared%20credentials').expect(200)).body.count).toBe(1);
      expect((await t().get('/api/extras/external-integrations/?has_secrets_group=true').expect(200)).body.results.map((r: any) => r.name)).toEqual(['repo']);
      const conflict = (await t().del(`/api/extras/secrets-groups/${group.id}/`).expect(409)).body.detail;
      expect(conflict).toContain('Unable to delete object. 2 dependent objects were found:');
      expect(conflict).toContain(`corp (${network.id})`);
      expect(conflict).toContain(`repo (http://fileserver/images) (${integration.id})`);

      // Software image files and controllers protect their external integration.
      const platform = await post('/api/dcim/platforms/', { name: 'EOS' });
      const version = await post('/api/dcim/software-versions/', { platform: platform.id, version: '4.30', status: 'Active' });
      const image = await post('/api/dcim/software-image-files/', { software_version: version.id, image_file_name: 'eos.swi', status: 'Active', external_integration: 'repo' });
      expect(image.external_integration.id).toBe(integration.id);
      expect((await t().get('/api/dcim/software-image-files/?external_integration=repo').expect(200)).body.count).toBe(1);
      expect((await t().del(`/api/extras/external-integrations/${integration.id}/`).expect(409)).body.detail).toContain(image.id);
      await t().del(`/api/dcim/software-image-files/${image.id}/`).expect(204);

      const siteType = await post('/api/dcim/location-types/', { name: 'Secret site', content_types: ['dcim.controller'] });
      const site = await post('/api/dcim/locations/', { name: 'Secret site 1', location_type: siteType.id, status: 'Active' });
      const controller = await post('/api/dcim/controllers/', { name: 'wlc', status: 'Active', location: site.id, external_integration: integration.id });
      expect((await t().get(`/api/dcim/controllers/?external_integration=${integration.id}`).expect(200)).body.count).toBe(1);
      expect((await t().del(`/api/extras/external-integrations/${integration.id}/`).expect(409)).body.detail).toContain(controller.id);
      await t().del(`/api/dcim/controllers/${controller.id}/`).expect(204);
      await t().del(`/api/extras/external-integrations/${integration.id}/`).expect(204);
      await t().del(`/api/wireless/wireless-networks/${network.id}/`).expect(204);

      // Now only SET NULL holders remain: the group goes, and they lose it.
      await t().del(`/api/extras/secrets-groups/${group.id}/`).expect(204);
      expect((await t().get(`/api/cloud/cloud-accounts/${account.id}/`).expect(200)).body.secrets_group).toBeNull();
      expect((await t().get(`/api/dcim/device-redundancy-groups/${drg.id}/`).expect(200)).body.secrets_group).toBeNull();
      expect((await t().get(`/api/dcim/interface-redundancy-groups/${irg.id}/`).expect(200)).body.secrets_group).toBeNull();
    });

    it("checks an external integration's URL and timeout with the reference's messages", async () => {
      expect(await refuse('/api/extras/external-integrations/', { name: 'bad', remote_url: 'no url', timeout: -1, http_method: 'TRACE' })).toEqual({
        remote_url: ['Enter a valid URL.'],
        timeout: ['Ensure this value is greater than or equal to 0.'],
        http_method: ['TRACE is not a valid choice.'],
      });
      const i = await post('/api/extras/external-integrations/', { name: 'defaults', remote_url: 'https://nms.example.com' });
      expect(i).toMatchObject({ verify_ssl: true, timeout: 30, extra_config: null, headers: null, http_method: null, ca_file_path: '', secrets_group: null });
    });
  },
  {
    env: {
      SECRETS_ENV_VARIABLES: 'NETKEEL_SECRET_*,SECRET_KEY',
      SECRETS_FILE_ROOT: root,
      NETKEEL_SECRET_TEST: VALUE,
      NETKEEL_SECRET_USER: 'u',
      NETKEEL_SECRET_PASS: 'p',
      OTHER_SET: 'set',
    },
  },
);
