import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EventBroker } from '../../src/core/events/broker';
import { EventBrokers } from '../../src/core/events/event-brokers';
import { ADMIN_PASSWORD, eachDatabase } from '../../src/core/testing/harness';
import { ident, sql } from '../../src/database/sql';
import { MemoryEventBroker, UserEventsWatcher } from '../support/event-plugin';
import { localPath } from '../../src/core/testing/repo-root';

type Obj = Record<string, any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cookiesOf = (res: { headers: Record<string, unknown> }) => ((res.headers['set-cookie'] as string[] | undefined) ?? []).map((c) => c.split(';')[0]).filter((c) => !c.endsWith('='));

/**
 * Event notifications (Nautobot 2.4's nautobot.core.events) as a broker sees them: EVENT_BROKERS
 * configures one of a class the suite's plugin defines (test/support/event-plugin), which keeps
 * every event it takes; the plugin also registers a broker of its own for the user events.
 */
eachDatabase(
  'event notifications',
  (t) => {
    const brokers = () => t().app.get(EventBrokers);
    const recorder = () => brokers().list().find((b): b is MemoryEventBroker => b instanceof MemoryEventBroker && b.options.note === 'configured')!;
    const events = (topic?: string) => recorder().events.filter((e) => !topic || e.topic === topic);
    const post = async (path: string, body: unknown, token?: string) => (await t().post(path, body, token).expect(201)).body;
    const recordsOf = async (id: string) => (await t().get(`/api/extras/object-changes/?changed_object_id=${id}`).expect(200)).body.results as Obj[];
    const job = async (name: string) => (await t().get(`/api/extras/jobs/?name=${encodeURIComponent(name)}`).expect(200)).body.results[0] as Obj;
    const until = async <T>(find: () => T | undefined, what: string): Promise<T> => {
      for (let i = 0; i < 200; i++) {
        const v = find();
        if (v) return v;
        await sleep(50);
      }
      throw new Error(`no ${what}`);
    };
    let siteType: Obj;
    let device: (name: string) => Obj;

    beforeAll(async () => {
      siteType = await post('/api/dcim/location-types/', { name: 'Site', content_types: ['dcim.device'] });
      const site = await post('/api/dcim/locations/', { name: 'Site 1', location_type: siteType.id, status: 'Active' });
      const maker = await post('/api/dcim/manufacturers/', { name: 'Acme' });
      const type = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Box' });
      const role = await post('/api/extras/roles/', { name: 'Leaf', content_types: ['dcim.device'] });
      device = (name) => ({ name, device_type: type.id, role: role.id, status: 'Active', location: site.id });
    });
    beforeEach(() => void recorder().events.splice(0));

    it('takes its brokers from EVENT_BROKERS, of a class a plugin defines, and from code', () => {
      expect(recorder()).toMatchObject({ options: { note: 'configured' }, includeTopics: ['*'], excludeTopics: ['nautobot.*.tenancy.*'] });
      expect(brokers().list()).toContain(t().app.get(UserEventsWatcher).broker);
    });

    it('publishes a create, an update and a delete with the snapshots and the change context', async () => {
      const requestId = randomUUID();
      const made = (await t().post('/api/dcim/locations/', { name: 'AMS1', location_type: siteType.id, status: 'Active' }).set('X-Request-ID', requestId).expect(201)).body;
      const [record] = await recordsOf(made.id);
      const [created] = events();
      expect(Object.keys(created.payload)).toEqual(['prechange', 'postchange', 'differences', 'context']);
      expect(created).toEqual({
        topic: 'nautobot.create.dcim.location',
        payload: {
          prechange: null,
          postchange: record.object_data_v2,
          differences: { removed: null, added: record.object_data_v2 },
          context: { change_context: 'Web', change_context_detail: '', request_id: requestId, user_name: 'admin', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}\+00:00$/) },
        },
      });
      expect(new Date(created.payload.context.timestamp.replace(' ', 'T')).getTime()).toBe(new Date(record.time).getTime());
      expect(record.object_data_v2).toMatchObject({ id: made.id, object_type: 'dcim.location', name: 'AMS1' });

      await t().patch(`/api/dcim/locations/${made.id}/`, { description: 'Amsterdam' }).expect(200);
      const [, updated] = events();
      expect(updated.topic).toBe('nautobot.update.dcim.location');
      expect(updated.payload.prechange).toEqual(record.object_data_v2);
      expect(updated.payload.postchange).toMatchObject({ id: made.id, description: 'Amsterdam' });
      expect(updated.payload.differences).toEqual({ removed: { description: '' }, added: { description: 'Amsterdam' } });

      await t().del(`/api/dcim/locations/${made.id}/`).expect(204);
      const [, , deleted] = events();
      expect(deleted).toEqual({
        topic: 'nautobot.delete.dcim.location',
        payload: { prechange: updated.payload.postchange, postchange: null, differences: { removed: updated.payload.postchange, added: null }, context: expect.objectContaining({ change_context: 'Web' }) },
      });
      expect(events()).toHaveLength(3);
    });

    it('gives an update whose earlier records are gone the object as it was', async () => {
      const made = await post('/api/dcim/locations/', { name: 'Unlogged', location_type: siteType.id, status: 'Active' });
      await t().db.execute(sql`DELETE FROM ${ident('extras_objectchange')} WHERE ${ident('changed_object_id')} = ${made.id}`);
      await t().patch(`/api/dcim/locations/${made.id}/`, { description: 'later' }).expect(200);
      const [, updated] = events();
      expect(updated.payload.prechange).toMatchObject({ id: made.id, name: 'Unlogged', description: '' });
      expect(updated.payload.differences).toEqual({ removed: { description: '' }, added: { description: 'later' } });
      await t().del(`/api/dcim/locations/${made.id}/`).expect(204);
    });

    it('publishes one event per object of a bulk write, and nothing for a write that is rolled back', async () => {
      const requestId = randomUUID();
      const devices = (await t().post('/api/dcim/devices/', ['d1', 'd2', 'd3'].map(device)).set('X-Request-ID', requestId).expect(201)).body as Obj[];
      expect(events().map((e) => [e.topic, e.payload.postchange.id, e.payload.context.request_id])).toEqual(devices.map((d) => ['nautobot.create.dcim.device', d.id, requestId]));
      recorder().events.splice(0);
      await t().patch('/api/dcim/devices/', devices.map((d) => ({ id: d.id, serial: `S-${d.name}` }))).expect(200);
      expect(events().map((e) => [e.topic, e.payload.differences])).toEqual(devices.map((d) => ['nautobot.update.dcim.device', { removed: { serial: '' }, added: { serial: `S-${d.name}` } }]));
      recorder().events.splice(0);

      // Refused, rolled back after its records were written (the scope re-check after saving), or invalid: nothing.
      await t().post('/api/dcim/devices/', [device('d4'), device('d1')]).expect(400);
      const reader = { types: ['dcim.devicetype', 'extras.role', 'dcim.location', 'extras.status'], actions: ['view'] };
      const constrained = await t().userWith('events-constrained', [reader, { types: ['dcim.device'], actions: ['add', 'view'], constraints: { name__startswith: 'ok' } }]);
      await t().post('/api/dcim/devices/', [device('ok-1'), device('not-ok')], constrained).expect(403);
      expect((await t().get('/api/dcim/devices/?name=ok-1').expect(200)).body.count).toBe(0);
      expect(events().filter((e) => e.topic.endsWith('.dcim.device'))).toEqual([]);

      await t().del('/api/dcim/devices/', devices.map((d) => ({ id: d.id }))).expect(204);
      // One each, in the order the delete collected them.
      const gone = events('nautobot.delete.dcim.device').map((e) => [e.payload.prechange.id, e.payload.postchange]);
      expect(gone.sort()).toEqual(devices.map((d) => [d.id, null]).sort());
    });

    it('hands each broker only the topics its include and exclude patterns admit', async () => {
      const picky = new MemoryEventBroker({}, { include: ['nautobot.create.*', 'nautobot.delete.dcim.*'], exclude: ['*.dcim.device'] });
      brokers().register(picky);
      try {
        const loc = await post('/api/dcim/locations/', { name: 'Picky', location_type: siteType.id, status: 'Active' });
        await t().patch(`/api/dcim/locations/${loc.id}/`, { description: 'x' }).expect(200);
        const [d] = await post('/api/dcim/devices/', [{ ...device('picky-1'), location: loc.id }]);
        await t().del(`/api/dcim/devices/${d.id}/`).expect(204);
        await t().del(`/api/dcim/locations/${loc.id}/`).expect(204);
        await post('/api/tenancy/tenants/', { name: 'Picked' });
        expect(picky.events.map((e) => e.topic)).toEqual(['nautobot.create.dcim.location', 'nautobot.delete.dcim.location', 'nautobot.create.tenancy.tenant']);
        // The configured broker takes everything but tenancy.
        expect(events().map((e) => e.topic)).toEqual([
          'nautobot.create.dcim.location',
          'nautobot.update.dcim.location',
          'nautobot.create.dcim.device',
          'nautobot.delete.dcim.device',
          'nautobot.delete.dcim.location',
        ]);
      } finally {
        brokers().deregister(picky);
      }
    });

    it('costs a write no statement for a topic no broker takes', async () => {
      const tenant = await post('/api/tenancy/tenants/', { name: 'Counted' });
      const patch = (description: string) => t().patch(`/api/tenancy/tenants/${tenant.id}/`, { description }).expect(200);
      await patch('warm');
      const without = await t().countStatements(() => patch('a'));
      const taker = new MemoryEventBroker({}, { include: ['nautobot.update.tenancy.*'] });
      brokers().register(taker);
      try {
        // One statement more: the previous record, for the snapshots.
        expect(await t().countStatements(() => patch('b'))).toBe(without + 1);
      } finally {
        brokers().deregister(taker);
      }
      expect(taker.events.map((e) => e.payload.differences)).toEqual([{ removed: { description: 'a' }, added: { description: 'b' } }]);
      expect(await t().countStatements(() => patch('c'))).toBe(without);
    });

    it('never lets a broker that throws, rejects or never answers fail or hold a write', async () => {
      const failing = [
        new (class Throwing extends EventBroker {
          publish(): void {
            throw new Error('bus down');
          }
        })(),
        new (class Rejecting extends EventBroker {
          async publish(): Promise<void> {
            throw new Error('timed out');
          }
        })(),
        new (class Hanging extends EventBroker {
          publish(): Promise<void> {
            return new Promise(() => undefined);
          }
        })(),
      ];
      const after = new MemoryEventBroker({}, {});
      const logged: string[] = [];
      const spy = jest.spyOn(Logger.prototype, 'error').mockImplementation((m: unknown) => void logged.push(String(m)));
      try {
        for (const b of [...failing, after]) brokers().register(b);
        const made = await post('/api/dcim/locations/', { name: 'Despite', location_type: siteType.id, status: 'Active' });
        await t().get(`/api/dcim/locations/${made.id}/`).expect(200);
        expect(after.events.map((e) => e.topic)).toEqual(['nautobot.create.dcim.location']);
        await sleep(10);
        expect(logged).toEqual(['Event broker Throwing failed to publish nautobot.create.dcim.location: bus down', 'Event broker Rejecting failed to publish nautobot.create.dcim.location: timed out']);
        await t().del(`/api/dcim/locations/${made.id}/`).expect(204);
      } finally {
        spy.mockRestore();
        for (const b of [...failing, after]) brokers().deregister(b);
      }
    });

    it("publishes a job run's start and completion, and records its writes as a Job's", async () => {
      const button = await job('Example Simple Job Button Receiver');
      const data = { object_pk: 'pk-1', object_model_name: 'dcim.device' };
      const run = (await t().post(`/api/extras/jobs/${button.id}/run/`, { data }).expect(201)).body.job_result;
      const completed = await until(() => events('nautobot.jobs.job.completed').find((e) => e.payload.job_result_id === run.id), 'completed event');
      const started = events('nautobot.jobs.job.started').find((e) => e.payload.job_result_id === run.id)!;
      expect(started.payload).toEqual({ job_result_id: run.id, job_name: 'Example Simple Job Button Receiver', user_name: 'admin', job_kwargs: data });
      expect(completed.payload).toEqual({ ...started.payload, job_output: { object_pk: 'pk-1' }, einfo: null });
      expect(events().indexOf(started)).toBeLessThan(events().indexOf(completed));
      expect((await t().get(`/api/extras/job-results/${run.id}/`).expect(200)).body.status.value).toBe('SUCCESS');

      // A failure; a job that may have sensitive variables does not show its data.
      const importer = await job('Import Objects');
      await t().patch(`/api/extras/jobs/${importer.id}/`, { has_sensitive_variables: true }).expect(200);
      try {
        const failed = (await t().post(`/api/extras/jobs/${importer.id}/run/`, { data: { content_type: 'dcim.nothing', csv_data: 'name\nx' } }).expect(201)).body.job_result;
        const done = await until(() => events('nautobot.jobs.job.completed').find((e) => e.payload.job_result_id === failed.id), 'failed event');
        expect(done.payload).toEqual({
          job_result_id: failed.id,
          job_name: 'Import Objects',
          user_name: 'admin',
          job_output: null,
          einfo: { exc_type: 'JobFailed', exc_message: 'Content type dcim.nothing cannot be imported.' },
        });
      } finally {
        await t().patch(`/api/extras/jobs/${importer.id}/`, { has_sensitive_variables: false }).expect(200);
      }

      const imported = (await t().post(`/api/extras/jobs/${importer.id}/run/`, { data: { content_type: 'dcim.locationtype', csv_data: 'name\nImported type' } }).expect(201)).body.job_result;
      await until(() => events('nautobot.jobs.job.completed').find((e) => e.payload.job_result_id === imported.id), 'import event');
      const [change] = events('nautobot.create.dcim.locationtype');
      expect(change.payload.postchange).toMatchObject({ name: 'Imported type' });
      expect(change.payload.context).toMatchObject({ change_context: 'Job', change_context_detail: 'netkeel.jobs.imports.ImportObjects', user_name: 'admin' });
      const [record] = await recordsOf(change.payload.postchange.id);
      expect(record).toMatchObject({ change_context: { value: 'job', label: 'Job' }, change_context_detail: 'netkeel.jobs.imports.ImportObjects', request_id: change.payload.context.request_id });
    });

    it('runs no job hook for what a job hook receiver changed (no hook loop)', async () => {
      const echo = await job('Tag echo');
      await t().patch(`/api/extras/jobs/${echo.id}/`, { enabled: true }).expect(200);
      const hook = await post('/api/extras/job-hooks/', { name: 'Echo tags', job: echo.id, content_types: ['extras.tag'], type_create: true });
      try {
        const seed = await post('/api/extras/tags/', { name: 'echo seed' });
        const runs = async () => (await t().get(`/api/extras/job-results/?job_model=${echo.id}`).expect(200)).body.results as Obj[];
        for (let i = 0; i < 200 && !(await runs()).some((r) => r.status.value === 'SUCCESS'); i++) await sleep(50);
        await sleep(1000); // what a loop would run next has had time to run
        expect((await runs()).map((r) => r.status.value)).toEqual(['SUCCESS']);
        const tags = (await t().get('/api/extras/tags/?q=echo').expect(200)).body.results.map((x: Obj) => x.name).sort();
        expect(tags).toEqual([`echo of ${seed.id}`, 'echo seed']);
        const [record] = await recordsOf((await t().get(`/api/extras/tags/?name=${encodeURIComponent(`echo of ${seed.id}`)}`).expect(200)).body.results[0].id);
        expect(record.change_context).toEqual({ value: 'job-hook', label: 'Job hook' });
      } finally {
        await t().del(`/api/extras/job-hooks/${hook.id}/`).expect(204);
      }
    });

    it('publishes approvals and denials with the scheduled job as its change record holds it', async () => {
      const cleanup = await job('Stale Object Cleanup');
      await t().patch(`/api/extras/jobs/${cleanup.id}/`, { approval_required: true }).expect(200);
      try {
        const requester = await t().userWith('events-requester', [{ types: ['extras.job'], actions: ['view', 'run', 'approve'] }, { types: ['extras.scheduledjob'], actions: ['view', 'change'] }]);
        const ask = async () => (await t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data: { job_result_days: 0, dryrun: false } }, requester).expect(201)).body.scheduled_job as Obj;
        const [first, second, third] = [await ask(), await ask(), await ask()];
        // Refused: the requester's own request.
        await t().post(`/api/extras/scheduled-jobs/${third.id}/approve/?force=true`, {}, requester).expect(403);
        expect(events('nautobot.jobs.approval.approved')).toEqual([]);

        await t().post(`/api/extras/scheduled-jobs/${first.id}/approve/?force=true`, {}).expect(200);
        const [approved] = events('nautobot.jobs.approval.approved');
        const [approval] = await recordsOf(first.id);
        expect(approval.action.value).toBe('update');
        expect(approved.payload).toEqual({ data: approval.object_data_v2 });
        const admin = (await t().get('/api/users/users/?username=admin').expect(200)).body.results[0];
        expect(approved.payload.data).toMatchObject({ id: first.id, object_type: 'extras.scheduledjob', approval_required: true, approved_by_user: { id: admin.id } });
        expect(approved.payload.data.approved_at).not.toBeNull();

        await t().post(`/api/extras/scheduled-jobs/${second.id}/deny/`, {}).expect(200);
        const [denied] = events('nautobot.jobs.approval.denied');
        const [deletion] = await recordsOf(second.id);
        expect(deletion.action.value).toBe('delete');
        expect(denied.payload).toEqual({ data: deletion.object_data_v2 });
        expect(denied.payload.data).toMatchObject({ id: second.id, approved_at: null });
        await t().del(`/api/extras/scheduled-jobs/${third.id}/`).expect(204);
        // The approved run goes on in the worker: let it end before the next test.
        await until(() => events('nautobot.jobs.job.completed').find((e) => e.payload.job_name === 'Stale Object Cleanup'), 'approved run');
      } finally {
        await t().patch(`/api/extras/jobs/${cleanup.id}/`, { approval_required: false }).expect(200);
      }
    });

    it('publishes logins and logouts with the user, never the password', async () => {
      const watcher = t().app.get(UserEventsWatcher).broker;
      watcher.events.splice(0);
      const login = async (password: string) => {
        const page = await t().http.get('/login/').expect(200);
        const token = /name="csrfmiddlewaretoken" value="([0-9a-f]+)"/.exec(page.text)![1];
        return t().http.post('/login/').set('Cookie', cookiesOf(page).join('; ')).type('form').send({ csrfmiddlewaretoken: token, username: 'admin', password });
      };
      expect((await login('wrong')).status).toBe(200);
      expect(watcher.events).toEqual([]);
      const res = await login(ADMIN_PASSWORD);
      expect(res.status).toBe(303);
      const [loggedIn] = events('nautobot.users.user.login');
      const { config_data: _, ...admin } = (await t().get('/api/users/users/?username=admin').expect(200)).body.results[0];
      expect(loggedIn.payload).toEqual({ data: admin });
      expect(admin.last_login).not.toBeNull();
      expect(loggedIn.payload.data).not.toHaveProperty('password');

      const cookies = cookiesOf(res);
      const csrf = cookies.find((c) => c.startsWith('csrftoken='))!.split('=')[1];
      await t().http.post('/logout/').set('Cookie', cookies.join('; ')).set('X-CSRFToken', csrf).expect(303);
      expect(events('nautobot.users.user.logout')).toEqual([{ topic: 'nautobot.users.user.logout', payload: { data: admin } }]);
      // The plugin's own broker, which takes the user topics only.
      expect(watcher.events.map((e) => e.topic)).toEqual(['nautobot.users.user.login', 'nautobot.users.user.logout']);
    });

    it("publishes a password change as the user's own or an administrator's", async () => {
      const token = await t().userWith('events-pw', [{ types: ['users.user'], actions: ['view', 'change'], constraints: { username: 'events-pw' } }]);
      const id = (await t().get('/api/users/users/?username=events-pw').expect(200)).body.results[0].id;
      await t().patch(`/api/users/users/${id}/`, { password: 'my own new password' }, token).expect(200);
      await t().patch(`/api/users/users/${id}/`, { first_name: 'Pat' }, token).expect(200);
      await t().patch(`/api/users/users/${id}/`, { password: 'reset by the admin' }).expect(200);
      const changes = events().filter((e) => e.topic.endsWith('change_password'));
      expect(changes.map((e) => [e.topic, e.payload.data.id, e.payload.data.first_name])).toEqual([
        ['nautobot.users.user.change_password', id, ''],
        ['nautobot.admin.user.change_password', id, 'Pat'],
      ]);
      expect(changes.every((e) => !('password' in e.payload.data) && !('config_data' in e.payload.data))).toBe(true);
    });
  },
  {
    env: {
      PLUGINS: localPath(__dirname, '../support/event-plugin'),
      EVENT_BROKERS: JSON.stringify({ recorder: { CLASS: 'memory', OPTIONS: { note: 'configured' }, TOPICS: { EXCLUDE: ['nautobot.*.tenancy.*'] } } }),
      JOBS_POLL_INTERVAL_MS: '100',
      // Statement counts around token requests, independent of the credential cache's timing.
      CREDENTIAL_CACHE: 'false',
    },
  },
);
