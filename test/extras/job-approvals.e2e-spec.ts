import { eachDatabase, TestApp } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/** Waits until a job result is done (the server's own worker runs it). */
async function finished(t: TestApp, id: string): Promise<Obj> {
  for (let i = 0; i < 200; i++) {
    const r = (await t.get(`/api/extras/job-results/${id}/`).expect(200)).body;
    if (r.status.value === 'SUCCESS' || r.status.value === 'FAILURE') return r;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`job result ${id} never finished`);
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
const FORBIDDEN = { detail: 'You do not have permission to perform this action.' };

/**
 * Jobs as Nautobot 2.4.36's JobViewSet, JobResultViewSet and ScheduledJobViewSet allow: no job
 * is created through the API; job results and scheduled jobs are deleted; a run of a job that
 * requires approval waits as a scheduled job until another user approves it (`approve/`),
 * is denied (`deny/`, deleted), or is tried out (`dry-run/`), with the reference's permission
 * rules and messages.
 */
eachDatabase(
  'job approvals',
  (t) => {
    const job = async (name: string) => (await t().get(`/api/extras/jobs/?name=${encodeURIComponent(name)}`).expect(200)).body.results[0] as Obj;
    const scheduled = (id: string) => `/api/extras/scheduled-jobs/${id}/`;
    const resultsOf = async (scheduledId: string) => (await t().get(`/api/extras/job-results/?scheduled_job=${scheduledId}`).expect(200)).body.count as number;
    const userId = async (username: string) => (await t().get(`/api/users/users/?username=${username}`).expect(200)).body.results[0].id as string;
    let cleanup: Obj;
    let requester: string;
    /** A run of Stale Object Cleanup (approval required) by the requester: a scheduled job awaiting approval. */
    const request = async (data: Obj = { job_result_days: 0 }) => {
      const res = await t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data }, requester).expect(201);
      expect(res.body.job_result).toBeNull();
      return res.body.scheduled_job as Obj;
    };

    beforeAll(async () => {
      cleanup = await job('Stale Object Cleanup');
      await t().patch(`/api/extras/jobs/${cleanup.id}/`, { approval_required: true }).expect(200);
      requester = await t().userWith('requester', [{ types: ['extras.job'], actions: ['view', 'run'] }, { types: ['extras.scheduledjob'], actions: ['view', 'change', 'delete'] }, { types: ['extras.job'], actions: ['approve'] }]);
    });

    it('refuses to create jobs (405) and deletes job results and scheduled jobs', async () => {
      const refused = await t().post('/api/extras/jobs/', { module_name: 'x', job_class_name: 'X', name: 'Made by a client', grouping: 'x' }).expect(405);
      expect(refused.body).toEqual({ detail: 'Method "POST" not allowed.' });
      expect(refused.headers.allow).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      expect((await t().get('/api/extras/jobs/?name=Made%20by%20a%20client').expect(200)).body.count).toBe(0);
      expect((await t().options('/api/extras/jobs/').expect(200)).body).not.toHaveProperty('actions');
      const doc = (await t().http.get('/api/swagger.json').expect(200)).body;
      expect(doc.paths['/api/extras/jobs/'].post).toBeUndefined();
      expect(doc.paths['/api/extras/jobs/{id}/'].patch).toBeDefined();
      expect(doc.paths['/api/extras/job-results/'].delete).toBeDefined();
      expect(doc.paths['/api/extras/job-results/'].post).toBeUndefined();
      expect(doc.paths['/api/extras/scheduled-jobs/{id}/'].delete).toBeDefined();
      expect(doc.paths['/api/extras/scheduled-jobs/{id}/'].patch).toBeUndefined();

      const button = await job('Example Simple Job Button Receiver');
      const run = async (pk: string) => (await t().post(`/api/extras/jobs/${button.id}/run/`, { data: { object_pk: pk, object_model_name: 'dcim.device' } }).expect(201)).body.job_result;
      const [one, two, three] = [await run('del-1'), await run('del-2'), await run('del-3')];
      for (const r of [one, two, three]) await finished(t(), r.id);
      const results = await t().get('/api/extras/job-results/').expect(200);
      expect(results.headers.allow).toBe('GET, DELETE, HEAD, OPTIONS');
      expect((await t().post('/api/extras/job-results/', { name: 'x' }).expect(405)).body).toEqual({ detail: 'Method "POST" not allowed.' });
      expect((await t().patch(`/api/extras/job-results/${one.id}/`, { name: 'x' }).expect(405)).body).toEqual({ detail: 'Method "PATCH" not allowed.' });
      const logs = (await t().get(`/api/extras/job-logs/?job_result=${one.id}`).expect(200)).body.results as Obj[];
      expect(logs.length).toBeGreaterThan(0);
      // Only with delete permission on the result.
      const viewer = await t().userWith('result-viewer', [{ types: ['extras.jobresult', 'extras.joblogentry'], actions: ['view'] }]);
      expect((await t().del(`/api/extras/job-results/${one.id}/`, undefined, viewer).expect(403)).body).toEqual(FORBIDDEN);
      await t().del(`/api/extras/job-results/${one.id}/`).expect(204);
      await t().get(`/api/extras/job-results/${one.id}/`).expect(404);
      // Its logs go with it.
      for (const l of logs) await t().get(`/api/extras/job-logs/${l.id}/`).expect(404);
      await t().del('/api/extras/job-results/', [{ id: two.id }, { id: three.id }]).expect(204);
      for (const r of [two, three]) await t().get(`/api/extras/job-results/${r.id}/`).expect(404);

      const later = new Date(Date.now() + 3600_000).toISOString();
      const report = await job('Prefix Utilization Report');
      const schedule = (await t().post(`/api/extras/jobs/${report.id}/run/`, { data: {}, schedule: { name: 'Deleted schedule', interval: 'daily', start_time: later } }).expect(201)).body.scheduled_job;
      expect((await t().get(scheduled(schedule.id)).expect(200)).headers.allow).toBe('GET, DELETE, HEAD, OPTIONS');
      expect((await t().patch(scheduled(schedule.id), { name: 'x' }).expect(405)).body).toEqual({ detail: 'Method "PATCH" not allowed.' });
      await t().del(scheduled(schedule.id)).expect(204);
      await t().get(scheduled(schedule.id)).expect(404);
    });

    it('keeps a run of a job that requires approval waiting until another user approves it', async () => {
      const waiting = await request();
      expect(waiting).toMatchObject({ approval_required: true, approved_at: null, approved_by_user: null, interval: { value: 'immediately' }, one_off: true, enabled: true });
      expect(waiting.user.id).toBe(await userId('requester'));
      // Named as the reference names an immediate schedule: the job and the moment it was asked for.
      expect(waiting.name).toMatch(/^Stale Object Cleanup - \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
      await sleep(400);
      expect(await resultsOf(waiting.id)).toBe(0);

      // The requester may not approve their own request, whatever they may do.
      expect((await t().post(`${scheduled(waiting.id)}approve/`, {}, requester).expect(403)).body).toBe('You cannot approve your own job request!');
      // Approving needs change on the scheduled job (403), the scheduled job in that scope (404), and approve on its job.
      const viewOnly = await t().userWith('approve-viewer', [{ types: ['extras.scheduledjob'], actions: ['view'] }, { types: ['extras.job'], actions: ['approve'] }]);
      expect((await t().post(`${scheduled(waiting.id)}approve/`, {}, viewOnly).expect(403)).body).toEqual(FORBIDDEN);
      const outside = await t().userWith('approve-outside', [{ types: ['extras.scheduledjob'], actions: ['view', 'change'], constraints: { name: 'another' } }, { types: ['extras.job'], actions: ['approve'] }]);
      await t().post(`${scheduled(waiting.id)}approve/`, {}, outside).expect(404);
      const notApprover = await t().userWith('not-approver', [{ types: ['extras.scheduledjob'], actions: ['view', 'change'] }, { types: ['extras.job'], actions: ['approve'], constraints: { name: 'Import Objects' } }]);
      expect((await t().post(`${scheduled(waiting.id)}approve/`, {}, notApprover).expect(403)).body).toEqual({ detail: 'You do not have permission to approve this request.' });
      expect((await t().get(scheduled(waiting.id)).expect(200)).body).toMatchObject({ approved_at: null, approved_by_user: null });

      const approver = await t().userWith('approver', [{ types: ['extras.scheduledjob'], actions: ['view', 'change'] }, { types: ['extras.job'], actions: ['approve'], constraints: { name: 'Stale Object Cleanup' } }]);
      // Its start (the moment it was asked for) has passed: only a forced approval runs it.
      expect((await t().post(`${scheduled(waiting.id)}approve/`, {}, approver).expect(400)).body).toBe(
        "The job's start time is in the past. If you want to force a run anyway, add the `force` query parameter.",
      );
      const approved = await t().post(`${scheduled(waiting.id)}approve/?force=true`, {}, approver).expect(200);
      expect(approved.body).toMatchObject({ id: waiting.id, approval_required: true, approved_by_user: { id: await userId('approver') } });
      expect(approved.body.approved_at).not.toBeNull();
      let count = 0;
      for (let i = 0; i < 100 && !count; i++) {
        await sleep(50);
        count = await resultsOf(waiting.id);
      }
      expect(count).toBe(1);
      const [result] = (await t().get(`/api/extras/job-results/?scheduled_job=${waiting.id}`).expect(200)).body.results;
      expect((await finished(t(), result.id)).status.value).toBe('SUCCESS');
      const change = (await t().get(`/api/extras/object-changes/?changed_object_id=${waiting.id}`).expect(200)).body.results[0];
      expect(change).toMatchObject({ action: { value: 'update' }, user_name: 'approver' });
    });

    it('runs a dry run at once without approval, and dry-runs a waiting request as the reference allows', async () => {
      const dry = await t().post(`/api/extras/jobs/${cleanup.id}/run/`, { data: { job_result_days: 0, dryrun: true } }, requester).expect(201);
      expect(dry.body.scheduled_job).toBeNull();
      expect((await finished(t(), dry.body.job_result.id)).status.value).toBe('SUCCESS');

      const waiting = await request();
      const noRun = await t().userWith('dry-viewer', [{ types: ['extras.scheduledjob'], actions: ['view'] }]);
      expect((await t().post(`${scheduled(waiting.id)}dry-run/`, {}, noRun).expect(403)).body).toEqual({ detail: 'You do not have permission to run this job.' });
      const nothing = await t().userWith('dry-nobody', []);
      expect((await t().post(`${scheduled(waiting.id)}dry-run/`, {}, nothing).expect(403)).body).toEqual(FORBIDDEN);
      const runner = await t().userWith('dry-runner', [{ types: ['extras.scheduledjob'], actions: ['view'] }, { types: ['extras.job'], actions: ['view', 'run'] }]);
      const res = await t().post(`${scheduled(waiting.id)}dry-run/`, {}, runner).expect(200);
      expect(res.body).toMatchObject({ status: { value: 'PENDING' }, name: 'Stale Object Cleanup', user: { id: await userId('dry-runner') }, task_kwargs: { job_result_days: 0, dryrun: true } });
      const done = await finished(t(), res.body.id);
      expect(done.status.value).toBe('SUCCESS');
      const logs = (await t().get(`/api/extras/job-results/${res.body.id}/logs/`).expect(200)).body.map((l: Obj) => l.message);
      expect(logs).toContain('Dry run: nothing was deleted.');
      // The request still waits.
      expect((await t().get(scheduled(waiting.id)).expect(200)).body).toMatchObject({ approved_at: null });
      expect(await resultsOf(waiting.id)).toBe(0);

      // A job without a dryrun variable, or one that cannot run now, answers 405 as the reference does.
      const report = await job('Prefix Utilization Report');
      await t().patch(`/api/extras/jobs/${report.id}/`, { approval_required: true }).expect(200);
      try {
        const other = (await t().post(`/api/extras/jobs/${report.id}/run/`, { data: {} }).expect(201)).body.scheduled_job;
        expect((await t().post(`${scheduled(other.id)}dry-run/`, {}).expect(405)).body).toEqual({ detail: 'Method "This job does not support dry-run." not allowed.' });
        await t().patch(`/api/extras/jobs/${cleanup.id}/`, { enabled: false }).expect(200);
        expect((await t().post(`${scheduled(waiting.id)}dry-run/`, {}).expect(405)).body).toEqual({ detail: 'Method "This job cannot be dry-run at this time." not allowed.' });
      } finally {
        await t().patch(`/api/extras/jobs/${report.id}/`, { approval_required: false }).expect(200);
        await t().patch(`/api/extras/jobs/${cleanup.id}/`, { enabled: true }).expect(200);
      }
    });

    it('denies a request by deleting it, with the reference\'s permissions', async () => {
      const waiting = await request();
      const noDelete = await t().userWith('deny-changer', [{ types: ['extras.scheduledjob'], actions: ['view', 'change'] }, { types: ['extras.job'], actions: ['approve'] }]);
      expect((await t().post(`${scheduled(waiting.id)}deny/`, {}, noDelete).expect(403)).body).toEqual(FORBIDDEN);
      const notApprover = await t().userWith('deny-not-approver', [{ types: ['extras.scheduledjob'], actions: ['view', 'delete'] }]);
      expect((await t().post(`${scheduled(waiting.id)}deny/`, {}, notApprover).expect(403)).body).toEqual({ detail: 'You do not have permission to deny this request.' });
      await t().get(scheduled(waiting.id)).expect(200);
      // The requester may deny (withdraw) their own request.
      const denied = await t().post(`${scheduled(waiting.id)}deny/`, {}, requester).expect(200);
      // DRF renders Response(None) as an empty body.
      expect(denied.text).toBe('');
      await t().get(scheduled(waiting.id)).expect(404);
      await t().post(`${scheduled(waiting.id)}deny/`, {}).expect(404);
      await t().post(`${scheduled(waiting.id)}approve/`, {}).expect(404);
      await t().post('/api/extras/scheduled-jobs/not-a-uuid/approve/', {}).expect(404);
    });
  },
  { env: { JOBS_POLL_INTERVAL_MS: '100' } },
);
