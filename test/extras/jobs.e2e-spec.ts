import { eachDatabase, TestApp } from '../../src/core/testing/harness';
import { seedJobs } from '../fixtures/jobs.fixtures';
import { runJobHooks } from '../../src/modules/extras/jobs';
import { JobQueue } from '../../src/modules/extras/jobs/job-queue';
import { createApp } from '../../src/bootstrap';
import { loadSettings } from '../../src/config/settings';

/** The servers' clock runs this far ahead of the real one (schedules coming due). */
let shift = 0;

/** Waits until a job result is done (the worker of the test's own server runs it). */
async function finished(t: TestApp, id: string, token?: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const r = (await t.get(`/api/extras/job-results/${id}/`, token).expect(200)).body;
    if (r.status.value === 'SUCCESS' || r.status.value === 'FAILURE') return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`job result ${id} never finished`);
}

/**
 * Jobs as Nautobot 2.4 serves them: the registered jobs as records, run through the database
 * queue by the server's own worker, with results and logs; validation, permissions, schedules,
 * the API 2.0 and 2.1+ shapes of the jobs endpoint, job hooks matching changes.
 */
eachDatabase(
  'jobs',
  (t) => {
  const job = async (name: string) => (await t().get(`/api/extras/jobs/?name=${encodeURIComponent(name)}`).expect(200)).body.results[0];

  it('lists the registered jobs, netkeel\'s own enabled and installed, on the default queue', async () => {
    const res = await t().get('/api/extras/jobs/?depth=1').expect(200);
    const names = res.body.results.map((j: any) => j.name);
    expect(names).toEqual(expect.arrayContaining(['Import Objects', 'Prefix Utilization Report', 'Stale Object Cleanup', 'Example Job Hook Receiver', 'Example Simple Job Button Receiver']));
    const imp = res.body.results.find((j: any) => j.name === 'Import Objects');
    expect(imp).toMatchObject({ module_name: 'netkeel.jobs.imports', job_class_name: 'ImportObjects', grouping: 'System Jobs', installed: true, enabled: true, has_sensitive_variables: false, task_queues: ['default'], task_queues_override: false });
    expect(imp.default_job_queue).toMatchObject({ name: 'default' });
    expect(imp.job_queues.map((q: any) => q.name)).toEqual(['default']);
    const hook = res.body.results.find((j: any) => j.name === 'Example Job Hook Receiver');
    expect(hook).toMatchObject({ is_job_hook_receiver: true, is_job_button_receiver: false });
    // By name as well as by id.
    expect((await t().get(`/api/extras/jobs/${imp.id}/`).expect(200)).body.name).toBe('Import Objects');
  });

  it('serves the deprecated API 2.0 shape when 2.0 is asked for, and the 2.1 shape otherwise, saying which', async () => {
    const latest = await t().get('/api/extras/jobs/').expect(200);
    expect(latest.headers['api-version']).toBe('2.4');
    const v20 = await t().get('/api/extras/jobs/').set('Accept', 'application/json; version=2.0').expect(200);
    expect(v20.headers['api-version']).toBe('2.0');
    const v21 = await t().get('/api/extras/jobs/?api_version=2.1').expect(200);
    expect(v21.headers['api-version']).toBe('2.1');
    for (const body of [latest.body, v21.body]) {
      expect(body.results[0]).toHaveProperty('job_queues');
      expect(body.results[0]).toHaveProperty('default_job_queue');
      expect(body.results[0]).toHaveProperty('job_queues_override');
    }
    expect(v20.body.results[0]).not.toHaveProperty('job_queues');
    expect(v20.body.results[0]).not.toHaveProperty('default_job_queue');
    expect(v20.body.results[0]).not.toHaveProperty('job_queues_override');
    expect(v20.body.results[0]).toMatchObject({ task_queues: ['default'], task_queues_override: false });
    expect(Object.keys(v20.body.results[0]).length).toBe(Object.keys(latest.body.results[0]).length - 4);
  });

  it('describes a job\'s variables', async () => {
    const imp = await job('Prefix Utilization Report');
    const res = await t().get(`/api/extras/jobs/${imp.id}/variables/`).expect(200);
    expect(res.body).toEqual([
      { name: 'prefixes', type: 'MultiObjectVar', help_text: 'Prefixes to report on (default: all)', required: false, model: 'ipam.prefix' },
      { name: 'threshold', type: 'IntegerVar', help_text: 'Utilization (percent) from which a prefix is reported as a warning', required: true, min_value: 0, max_value: 100, default: 80 },
    ]);
  });

  it('runs a job end to end: queued, run by the worker, its result and logs readable', async () => {
    const imp = await job('Import Objects');
    const csv = 'name,description\nJob tenant A,first\nJob tenant B,second\n';
    const res = await t().post(`/api/extras/jobs/${imp.id}/run/`, { data: { content_type: 'tenancy.tenant', csv_data: csv } }).expect(201);
    expect(res.body.scheduled_job).toBeNull();
    expect(res.body.job_result).toMatchObject({ name: 'Import Objects', status: { value: 'PENDING', label: 'PENDING' }, task_kwargs: { content_type: 'tenancy.tenant', csv_data: csv } });
    expect(res.body.job_result.job_model).toMatchObject({ id: imp.id, object_type: 'extras.job' });
    const done = await finished(t(), res.body.job_result.id);
    expect(done).toMatchObject({ status: { value: 'SUCCESS' }, result: { created: 2 }, traceback: null });
    expect(done.date_started).not.toBeNull();
    expect(done.date_done).not.toBeNull();
    expect((await t().get('/api/tenancy/tenants/?name=Job tenant A&name=Job tenant B').expect(200)).body.count).toBe(2);
    const logs = (await t().get(`/api/extras/job-logs/?job_result=${done.id}`).expect(200)).body.results;
    expect(logs.map((l: any) => [l.log_level.value, l.message])).toEqual([
      ['info', 'Created tenant'],
      ['info', 'Created tenant'],
      ['success', 'Created 2 tenants.'],
    ]);
    expect(logs[0].log_object).toBe('Job tenant A');
    const byResult = (await t().get(`/api/extras/job-results/${done.id}/logs/`).expect(200)).body;
    expect(byResult.map((l: any) => l.id)).toEqual(logs.map((l: any) => l.id));
  });

  it('cleans up the change log past its retention, for superusers only', async () => {
    const cleanup = await job('Change Log Cleanup');
    const run = async (data: object, token?: string) => finished(t(), (await t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data }, token).expect(201)).body.job_result.id, token);
    // Every record is younger than a day: none goes.
    const before = (await t().get('/api/extras/object-changes/?limit=1').expect(200)).body.count;
    expect(await run({ max_age: 1 })).toMatchObject({ status: { value: 'SUCCESS' }, result: { deleted: 0, days: 1 } });
    expect((await t().get('/api/extras/object-changes/?limit=1').expect(200)).body.count).toBeGreaterThanOrEqual(before);
    expect(await run({ max_age: 0 })).toMatchObject({ status: { value: 'SUCCESS' }, result: { deleted: 0 } });
    const runner = await t().userWith('changelog-cleaner', [
      { types: ['extras.job'], actions: ['view', 'run'] },
      { types: ['extras.jobresult', 'extras.joblogentry'], actions: ['view'] },
    ]);
    const refused = await run({}, runner);
    expect(refused.status.value).toBe('FAILURE');
    const logs = (await t().get(`/api/extras/job-results/${refused.id}/logs/`, runner).expect(200)).body;
    expect(logs.map((l: any) => l.message)).toEqual(['Only a superuser may clean up the change log.']);
  });

  it('imports all or none: one bad row fails the run, creates nothing and records why', async () => {
    const imp = await job('Import Objects');
    const csv = 'name,tenant_group\nAll or none 1,\nAll or none 2,No such group\n';
    const res = await t().post(`/api/extras/jobs/${imp.id}/run/`, { data: { content_type: 'tenancy.tenant', csv_data: csv } }).expect(201);
    const done = await finished(t(), res.body.job_result.id);
    expect(done.status.value).toBe('FAILURE');
    expect(done.traceback).toEqual(expect.any(String));
    expect((await t().get('/api/tenancy/tenants/?name__isw=All or none').expect(200)).body.count).toBe(0);
    const logs = (await t().get(`/api/extras/job-logs/?job_result=${done.id}`).expect(200)).body.results;
    expect(logs).toHaveLength(1);
    expect(logs[0].log_level.value).toBe('error');
    expect(logs[0].message).toContain('tenant_group');
  });

  it('fails a run that takes longer than the job\'s time limit, keeping nothing of it', async () => {
    const imp = await job('Import Objects');
    await t().patch(`/api/extras/jobs/${imp.id}/`, { time_limit: 0.001 }).expect(200);
    try {
      // 100 rows: enough work to outlast a millisecond on any machine.
      const csv = `name\n${Array.from({ length: 100 }, (_, i) => `Too late ${i}`).join('\n')}\n`;
      const res = await t().post(`/api/extras/jobs/${imp.id}/run/`, { data: { content_type: 'tenancy.tenant', csv_data: csv } }).expect(201);
      const done = await finished(t(), res.body.job_result.id);
      expect(done).toMatchObject({ status: { value: 'FAILURE' }, traceback: null });
      const logs = (await t().get(`/api/extras/job-logs/?job_result=${done.id}&limit=1000`).expect(200)).body.results;
      // What it logged on the way is kept, then why it failed.
      expect(logs.map((l: any) => [l.log_level.value, l.message])).toEqual([
        ...Array.from({ length: 100 }, () => ['info', 'Created tenant']),
        ['success', 'Created 100 tenants.'],
        ['failure', 'Job exceeded its time limit of 0.001 seconds.'],
      ]);
      expect((await t().get('/api/tenancy/tenants/?name__isw=Too late').expect(200)).body.count).toBe(0);
    } finally {
      await t().patch(`/api/extras/jobs/${imp.id}/`, { time_limit: 0 }).expect(200);
    }
  });

  it('refuses data that does not fit the variables, with the errors per variable', async () => {
    const report = await job('Prefix Utilization Report');
    const run = (data: unknown) => t().post(`/api/extras/jobs/${report.id}/run/`, { data });
    expect((await run({ threshold: 'lots' }).expect(400)).body).toEqual({ errors: { threshold: ['Enter a whole number.'] } });
    expect((await run({ threshold: 101 }).expect(400)).body).toEqual({ errors: { threshold: ['Ensure this value is less than or equal to 100.'] } });
    expect((await run({ flavour: 1 }).expect(400)).body).toEqual({ errors: { flavour: ['Job data contained an unknown property'] } });
    expect((await run({ prefixes: ['00000000-0000-4000-8000-000000000000'] }).expect(400)).body).toEqual({
      errors: { prefixes: ['Select a valid choice. 00000000-0000-4000-8000-000000000000 is not one of the available choices.'] },
    });
    expect((await run([1]).expect(400)).body).toEqual({ errors: ['Job data needs to be a dict'] });
    const imp = await job('Import Objects');
    expect((await t().post(`/api/extras/jobs/${imp.id}/run/`, { data: {} }).expect(400)).body).toEqual({
      errors: { content_type: ['This field is required.'] },
    });
    expect((await t().post(`/api/extras/jobs/${imp.id}/run/`, { data: {}, task_queue: 'elsewhere' }).expect(400)).body).toEqual({ task_queue: ['"elsewhere" is not a valid choice.'] });
    expect((await t().get('/api/extras/job-results/?status=PENDING').expect(200)).body.count).toBe(0);
  });

  it('runs only for users who may run jobs, within their constraints, and only enabled installed jobs', async () => {
    const report = await job('Prefix Utilization Report');
    const cleanup = await job('Stale Object Cleanup');
    const viewer = await t().userWith('job-viewer', [{ types: ['extras.job', 'extras.jobresult'], actions: ['view'] }]);
    expect((await t().post(`/api/extras/jobs/${report.id}/run/`, { data: {} }, viewer).expect(403)).body).toEqual({ detail: 'You do not have permission to perform this action.' });
    const runner = await t().userWith('job-runner', [
      { types: ['extras.job'], actions: ['view', 'run'], constraints: { name: 'Prefix Utilization Report' } },
      { types: ['extras.jobresult', 'ipam.prefix'], actions: ['view'] },
    ]);
    await t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data: {} }, runner).expect(404);
    const res = await t().post(`/api/extras/jobs/${report.id}/run/`, { data: { threshold: 50 } }, runner).expect(201);
    const done = await finished(t(), res.body.job_result.id, runner);
    expect(done.status.value).toBe('SUCCESS');
    expect(done.user).toMatchObject({ object_type: 'users.user' });
    // Disabled: 403 with the reference's message, for anyone.
    await t().patch(`/api/extras/jobs/${report.id}/`, { enabled: false }).expect(200);
    try {
      expect((await t().post(`/api/extras/jobs/${report.id}/run/`, { data: {} }).expect(403)).body).toEqual({ detail: 'This job is not enabled to be run.' });
    } finally {
      await t().patch(`/api/extras/jobs/${report.id}/`, { enabled: true }).expect(200);
    }
    // Clients create no job records (the reference's 405); nothing is made.
    const refused = await t().post('/api/extras/jobs/', { module_name: 'gone', job_class_name: 'Ghost', name: 'Ghost job', grouping: 'Gone', enabled: true }).expect(405);
    expect(refused.body).toEqual({ detail: 'Method "POST" not allowed.' });
    expect(refused.headers.allow).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
    expect((await t().get('/api/extras/jobs/?name=Ghost%20job').expect(200)).body.count).toBe(0);
    // A record for a job whose code is not installed (a database restored without an app's code) cannot run.
    const [ghost] = await seedJobs(t(), [{ module_name: 'gone', job_class_name: 'Ghost', name: 'Ghost job', grouping: 'Gone', enabled: true }]);
    expect(ghost.installed).toBe(false);
    expect((await t().post(`/api/extras/jobs/${ghost.id}/run/`, { data: {} }).expect(405)).body).toEqual({ detail: 'This job is not presently installed and cannot be run' });
    await t().del(`/api/extras/jobs/${ghost.id}/`).expect(204);
    expect((await t().del(`/api/extras/jobs/${report.id}/`).expect(409)).body).toEqual({ detail: 'Unable to delete Job Prefix Utilization Report. System Job cannot be deleted' });
  });

  it('marks an override when an administrator changes what the code declares, and keeps the sensitive/approval rule', async () => {
    const cleanup = await job('Stale Object Cleanup');
    const res = await t().patch(`/api/extras/jobs/${cleanup.id}/`, { description: 'Ours now' }).expect(200);
    expect(res.body).toMatchObject({ description: 'Ours now', description_override: true, name_override: false });
    expect((await t().patch(`/api/extras/jobs/${cleanup.id}/`, { has_sensitive_variables: true, approval_required: true }).expect(400)).body).toEqual({
      approval_required: ['A job with sensitive variables cannot also be marked as requiring approval'],
      has_sensitive_variables: ['A job with sensitive variables cannot also be marked as requiring approval'],
    });
  });

  it('schedules runs for later and recurring, checking the schedule as the reference does', async () => {
    const cleanup = await job('Stale Object Cleanup');
    const run = (schedule: unknown) => t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data: {}, schedule });
    expect((await run({ name: 'x' }).expect(400)).body).toEqual({ schedule: { interval: ['This field is required.'] } });
    expect((await run({ name: 'x', interval: 'monthly' }).expect(400)).body).toEqual({ schedule: { interval: ['"monthly" is not a valid choice.'] } });
    const soon = new Date(Date.now() + 3600_000).toISOString();
    expect((await run({ interval: 'daily', start_time: soon }).expect(400)).body).toEqual({ schedule: { name: ['Please provide a name for the job schedule.'] } });
    expect((await run({ name: 'past', interval: 'daily', start_time: '2020-01-01T00:00:00Z' }).expect(400)).body).toEqual({
      schedule: { start_time: ['Please enter a valid date and time greater than or equal to the current date and time.'] },
    });
    expect((await run({ name: 'cron', interval: 'custom', crontab: 'every day' }).expect(400)).body).toEqual({ schedule: { crontab: ['Please enter a valid crontab.'] } });

    const daily = await run({ name: 'Nightly cleanup', interval: 'daily', start_time: soon }).expect(201);
    expect(daily.body.job_result).toBeNull();
    expect(daily.body.scheduled_job).toMatchObject({ name: 'Nightly cleanup', interval: { value: 'daily' }, one_off: false, enabled: true, total_run_count: 0, task: 'netkeel.jobs.cleanup.StaleObjectCleanup', queue: 'default' });
    const cron = await run({ name: 'Every five minutes', interval: 'custom', crontab: '*/5 * * * *' }).expect(201);
    expect(cron.body.scheduled_job).toMatchObject({ interval: { value: 'custom' }, crontab: '*/5 * * * *' });
    const list = (await t().get('/api/extras/scheduled-jobs/?name=Nightly cleanup').expect(200)).body;
    expect(list.count).toBe(1);
    // A job that may have sensitive variables runs only now.
    const report = await job('Prefix Utilization Report');
    await t().patch(`/api/extras/jobs/${report.id}/`, { has_sensitive_variables: true }).expect(200);
    try {
      expect((await t().post(`/api/extras/jobs/${report.id}/run/`, { data: {}, schedule: { name: 'n', interval: 'hourly', start_time: soon } }).expect(400)).body).toEqual({
        schedule: { interval: ['Unable to schedule job: Job may have sensitive input variables'] },
      });
      // It runs now, and what it was given is not kept once it has run.
      const now = await t().post(`/api/extras/jobs/${report.id}/run/`, { data: { threshold: 10 } }).expect(201);
      expect(now.body.job_result.task_kwargs).toEqual({ prefixes: [], threshold: 10 });
      expect(now.body.job_result.celery_kwargs).toEqual({ nautobot_job_job_model_id: report.id, nautobot_job_user_id: expect.any(String), queue: 'default' });
      const done = await finished(t(), now.body.job_result.id);
      expect(done).toMatchObject({ status: { value: 'SUCCESS' }, task_kwargs: {} });
    } finally {
      await t().patch(`/api/extras/jobs/${report.id}/`, { has_sensitive_variables: false }).expect(200);
    }
  });

  it('keeps job buttons per content type and job hooks with the reference\'s rules', async () => {
    const button = await job('Example Simple Job Button Receiver');
    const hook = await job('Example Job Hook Receiver');
    await t().post('/api/extras/job-buttons/', { name: 'Log it', text: 'Log', job: button.id, content_types: ['dcim.device'] }).expect(201);
    await t().post('/api/extras/job-buttons/', { name: 'Log tenant', text: 'Log', job: button.id, content_types: ['tenancy.tenant'] }).expect(201);
    const devices = (await t().get('/api/extras/job-buttons/?content_types=dcim.device').expect(200)).body;
    expect(devices.results.map((b: any) => b.name)).toEqual(['Log it']);
    expect((await t().post('/api/extras/job-buttons/', { name: 'Wrong', text: 'x', job: hook.id, content_types: ['dcim.device'] }).expect(400)).body).toHaveProperty('job');

    expect((await t().post('/api/extras/job-hooks/', { name: 'No types', job: hook.id, content_types: ['tenancy.tenant'] }).expect(400)).body).toEqual({
      non_field_errors: ['You must select at least one type: create, update, and/or delete.'],
    });
    await t().post('/api/extras/job-hooks/', { name: 'Tenant changes', job: hook.id, content_types: ['tenancy.tenant'], type_create: true, type_update: true }).expect(201);
    expect((await t().post('/api/extras/job-hooks/', { name: 'Again', job: hook.id, content_types: ['tenancy.tenant'], type_update: true }).expect(400)).body).toEqual({
      type_update: ['A job hook already exists for update on tenancy | tenant to job Example Job Hook Receiver'],
    });

    // A change runs the hook's job after it commits, as the user who made it; a refused write runs nothing.
    const before = (await t().get(`/api/extras/job-results/?job_model=${hook.id}`).expect(200)).body.count;
    const tenant = (await t().post('/api/tenancy/tenants/', { name: 'Hooked by a job' }).expect(201)).body;
    await t().post('/api/tenancy/tenants/', { name: 'Hooked by a job' }).expect(400);
    let runs: any[] = [];
    for (let i = 0; i < 100 && runs.length <= before; i++) {
      await new Promise((res) => setTimeout(res, 50));
      runs = (await t().get(`/api/extras/job-results/?job_model=${hook.id}`).expect(200)).body.results;
    }
    expect(runs).toHaveLength(before + 1);
    const done = await finished(t(), runs[0].id);
    expect(done).toMatchObject({ status: { value: 'SUCCESS' }, result: { action: 'create', object_type: 'tenancy.tenant', object_id: tenant.id } });
    expect(done.user).toMatchObject({ object_type: 'users.user' });
  });

  it('runs a schedule when it comes due: a recurring one moves on, a one-off ends', async () => {
    const cleanup = await job('Stale Object Cleanup');
    const inAnHour = new Date(Date.now() + 3600_000).toISOString();
    const run = async (name: string, interval: string) =>
      (await t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data: { job_result_days: 0 }, schedule: { name, interval, start_time: inAnHour } }).expect(201)).body.scheduled_job;
    const hourly = await run('Due hourly', 'hourly');
    const once = await run('Due once', 'future');
    expect(once.one_off).toBe(true);
    shift = 3600_000 + 5_000;
    try {
      let results: any[] = [];
      for (let i = 0; i < 100 && results.length < 2; i++) {
        await new Promise((res) => setTimeout(res, 50));
        results = (await t().get(`/api/extras/job-results/?scheduled_job=${hourly.id}&scheduled_job=${once.id}`).expect(200)).body.results;
      }
      expect(results).toHaveLength(2);
      for (const r of results) expect((await finished(t(), r.id)).status.value).toBe('SUCCESS');
      const h = (await t().get(`/api/extras/scheduled-jobs/${hourly.id}/`).expect(200)).body;
      expect(h).toMatchObject({ enabled: true, total_run_count: 1 });
      expect(h.last_run_at).not.toBeNull();
      expect((await t().get(`/api/extras/scheduled-jobs/${once.id}/`).expect(200)).body).toMatchObject({ enabled: false, total_run_count: 1 });
      // Nothing more is due: no second run.
      await new Promise((res) => setTimeout(res, 400));
      expect((await t().get(`/api/extras/job-results/?scheduled_job=${hourly.id}&scheduled_job=${once.id}`).expect(200)).body.count).toBe(2);
    } finally {
      shift = 0;
    }
  });

  it('queues the runs of the enabled job hooks a batch of changes matches', async () => {
    const receiver = await job('Example Job Hook Receiver');
    const hook = (await t().post('/api/extras/job-hooks/', { name: 'Device deletes', job: receiver.id, content_types: ['dcim.device', 'dcim.location'], type_delete: true }).expect(201)).body;
    const off = (await t().post('/api/extras/job-hooks/', { name: 'Location deletes (off)', job: receiver.id, content_types: ['dcim.rack'], type_delete: true, enabled: false }).expect(201)).body;
    const queue = t().app.get(JobQueue);
    const changes = [
      { action: 'delete' as const, object_type: 'dcim.device', object_id: '11111111-1111-4111-8111-111111111111' },
      { action: 'update' as const, object_type: 'dcim.device', object_id: '11111111-1111-4111-8111-111111111111' },
      { action: 'delete' as const, object_type: 'dcim.rack', object_id: '22222222-2222-4222-8222-222222222222' },
      { action: 'delete' as const, object_type: 'circuits.circuit', object_id: '33333333-3333-4333-8333-333333333333' },
    ];
    const ids = await runJobHooks(t().db, queue, changes, null);
    expect(ids).toHaveLength(1);
    queue.onQueued();
    const done = await finished(t(), ids[0]);
    expect(done.status.value).toBe('SUCCESS');
    expect(done.task_kwargs).toEqual({ object_change: null, action: 'delete', object_type: 'dcim.device', object_id: changes[0].object_id, job_hook: hook.id });
    const logs = (await t().get(`/api/extras/job-logs/?job_result=${done.id}`).expect(200)).body.results;
    expect(logs.map((l: any) => l.message)).toEqual([`delete of dcim.device ${changes[0].object_id}`]);
    // Two statements whatever the batch: the hooks, then the runs.
    // (Counted on the executor it is given: the server's worker runs statements meanwhile.)
    let count = 0;
    const db = t().db;
    const counting = {
      ...db,
      dialect: db.dialect,
      inTransaction: false,
      query: (f: any) => (count++, db.query(f)),
      execute: (f: any) => (count++, db.execute(f)),
    } as unknown as typeof db;
    await runJobHooks(counting, queue, [...changes, ...changes], null);
    expect(count).toBe(2);
    expect(await runJobHooks(t().db, queue, [], null)).toEqual([]);
    await t().del('/api/extras/job-hooks/', [{ id: hook.id }, { id: off.id }]).expect(204);
  });

  it('polls while idle without a statement counted against the requests it runs beside', async () => {
    await new Promise((res) => setTimeout(res, 300)); // what earlier tests queued has run
    expect(await t().countStatements(() => new Promise((res) => setTimeout(res, 350)))).toBe(0);
  });

  it('runs each queued job once when two instances share the database', async () => {
    // PGlite holds its data directory for one process: there is no second instance to start.
    if (t().kind === 'pglite') return;
    const other = await createApp({ settings: loadSettings({ DATABASE_URL: t().url, SECRET_KEY: t().secret, LOG_LEVEL: 'error', JOBS_POLL_INTERVAL_MS: '50', JOBS_CONCURRENCY: '4' }) }, 'error');
    try {
      const receiver = await job('Example Simple Job Button Receiver');
      const queue = t().app.get(JobQueue);
      const runs = Array.from({ length: 16 }, (_, i) => ({
        job: { id: receiver.id, name: receiver.name, module_name: receiver.module_name, job_class_name: receiver.job_class_name },
        userId: null,
        data: { object_pk: `twice-${i}`, object_model_name: 'dcim.device' },
        queue: { id: receiver.default_job_queue.id, name: 'default' },
      }));
      const ids = await queue.enqueue(t().db, runs);
      queue.onQueued();
      other.get(JobQueue).onQueued();
      for (const id of ids) expect((await finished(t(), id)).status.value).toBe('SUCCESS');
      // Each run logged its one line once: no run was claimed by both workers.
      const logs = (await t().get(`/api/extras/job-logs/?limit=100&${ids.map((id) => `job_result=${id}`).join('&')}`).expect(200)).body;
      expect(logs.count).toBe(16);
      expect(new Set(logs.results.map((l: any) => l.job_result.id)).size).toBe(16);
    } finally {
      await other.close();
    }
  });
  },
  { env: { JOBS_POLL_INTERVAL_MS: '100' }, clock: () => new Date(Date.now() + shift) },
);
