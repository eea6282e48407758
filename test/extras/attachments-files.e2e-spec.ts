import { eachDatabase } from '../../src/core/testing/harness';

/**
 * File variables and file proxies as Nautobot 2.4 has them: a job run as multipart/form-data
 * (the job's data as parts, `_task_queue` and `_schedule_*` apart), the file held by a file proxy
 * of the run's result, given to the job (Import Objects' `csv_file`), listed read-only and
 * downloaded within the requester's view.
 */
eachDatabase('file variables and file proxies', (t) => {
  const importJob = async () => (await t().get('/api/extras/jobs/?name=Import%20Objects').expect(200)).body.results[0];
  const finished = async (id: string) => {
    for (let i = 0; i < 400; i++) {
      const r = (await t().get(`/api/extras/job-results/${id}/`).expect(200)).body;
      if (['SUCCESS', 'FAILURE'].includes(r.status.value)) return r;
      await new Promise((res) => setTimeout(res, 25));
    }
    throw new Error('never finished');
  };
  const download = (id: string, token?: string | null) =>
    t().get(`/api/extras/file-proxies/${id}/download/`, token).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    });
  const proxies = async (query: string) => (await t().get(`/api/extras/file-proxies/?${query}`).expect(200)).body;

  it('runs a job with a file uploaded as multipart, held by a file proxy of its result', async () => {
    const job = await importJob();
    const csv = Buffer.from('\ufeffname,description\nFile tenant 1,from a file\nFile tenant 2,from a file\n', 'utf8');
    const res = await t().post(`/api/extras/jobs/${job.id}/run/`).field('content_type', 'tenancy.tenant').field('_task_queue', 'default').attach('csv_file', csv, { filename: 'tenants.csv', contentType: 'text/csv' }).expect(201);
    const resultId = res.body.job_result.id;
    expect(res.body.job_result.task_kwargs).toEqual({ content_type: 'tenancy.tenant', csv_data: null, csv_file: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const done = await finished(resultId);
    expect(done.status.value).toBe('SUCCESS');
    expect((await t().get('/api/tenancy/tenants/?description=from%20a%20file').expect(200)).body.count).toBe(2);

    const listed = await proxies(`job_result_id=${resultId}`);
    expect(listed.count).toBe(1);
    const proxy = listed.results[0];
    expect(proxy).toMatchObject({ id: res.body.job_result.task_kwargs.csv_file, name: 'tenants.csv', display: 'tenants.csv', job_result: { id: resultId } });
    expect(proxy).not.toHaveProperty('file');
    expect((await proxies('job=Import%20Objects')).results.map((p: { id: string }) => p.id)).toContain(proxy.id);
    expect((await proxies('q=tenants')).results.map((p: { id: string }) => p.id)).toContain(proxy.id);

    const got = await download(proxy.id).expect(200);
    expect(got.headers['content-type']).toBe('text/csv');
    expect(got.headers['content-disposition']).toBe('attachment; filename="tenants.csv"');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(got.body as Buffer, csv)).toBe(0);

    // Read-only.
    await t().post('/api/extras/file-proxies/', { name: 'x' }).expect(405);
    await t().del(`/api/extras/file-proxies/${proxy.id}/`).expect(405);
  });

  it('refuses a file variable that is no file, and stores nothing for a refused run', async () => {
    const job = await importJob();
    const before = (await proxies('limit=1')).count;
    expect((await t().post(`/api/extras/jobs/${job.id}/run/`, { data: { content_type: 'tenancy.tenant', csv_file: 'tenants.csv' } }).expect(400)).body).toEqual({
      errors: { csv_file: ['The submitted data was not a file. Check the encoding type on the form.'] },
    });
    const refused = await t().post(`/api/extras/jobs/${job.id}/run/`).field('content_type', 'tenancy.tenant').field('unknown', 'x').attach('csv_file', Buffer.from('name\nX\n'), 'x.csv').expect(400);
    expect(refused.body).toEqual({ errors: { unknown: ['Job data contained an unknown property'] } });
    const queue = await t().post(`/api/extras/jobs/${job.id}/run/`).field('content_type', 'tenancy.tenant').field('_task_queue', 'elsewhere').attach('csv_file', Buffer.from('name\nX\n'), 'x.csv').expect(400);
    expect(queue.body).toEqual({ task_queue: ['"elsewhere" is not a valid choice.'] });
    expect((await proxies('limit=1')).count).toBe(before);
    // Without either input the job fails as the reference's.
    const none = await t().post(`/api/extras/jobs/${job.id}/run/`, { data: { content_type: 'tenancy.tenant' } }).expect(201);
    const failed = await finished(none.body.job_result.id);
    expect(failed.status.value).toBe('FAILURE');
  });

  it('serves a file only to those who may view its proxy, and deletes nothing it should keep', async () => {
    const job = await importJob();
    const res = await t().post(`/api/extras/jobs/${job.id}/run/`).field('content_type', 'tenancy.tenant').attach('csv_file', Buffer.from('name\nScoped file tenant\n'), { filename: 'scoped.csv', contentType: 'text/csv' }).expect(201);
    await finished(res.body.job_result.id);
    const proxy = (await proxies(`job_result_id=${res.body.job_result.id}`)).results[0];
    const other = (await proxies('name=tenants.csv')).results[0];
    const viewer = await t().userWith('file-viewer', [{ types: ['extras.fileproxy'], actions: ['view'], constraints: { name: 'scoped.csv' } }]);
    expect((await download(proxy.id, viewer).expect(200)).body.toString()).toBe('name\nScoped file tenant\n');
    await download(other.id, viewer).expect(404);
    const nobody = await t().userWith('file-nobody', [{ types: ['tenancy.tenant'], actions: ['view'] }]);
    await download(proxy.id, nobody).expect(403);
    await download(proxy.id, null).expect(403);
  });
});
