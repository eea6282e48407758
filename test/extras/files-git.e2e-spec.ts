import { eachDatabase } from '../../src/core/testing/harness';
import { seedJobs } from '../fixtures/jobs.fixtures';

/**
 * Git repositories and job queue assignments as Nautobot 2.4 has them, beyond the contract: the
 * repository's rules and messages, the sync endpoint (permission, scope, the job it queues and
 * the clear failure of a remote that cannot be reached: there is no network here), and the
 * assignments that writing a job's queues makes and removes.
 */
eachDatabase('git repositories and job queue assignments', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const repo = (name: string, extra: object = {}) => post('/api/extras/git-repositories/', { name, remote_url: `https://git.invalid/${name.replace(/\W/g, '-')}.git`, ...extra });
  const finished = async (id: string) => {
    for (let i = 0; i < 400; i++) {
      const r = (await t().get(`/api/extras/job-results/${id}/`).expect(200)).body;
      if (['SUCCESS', 'FAILURE'].includes(r.status.value)) return r;
      await new Promise((res) => setTimeout(res, 25));
    }
    throw new Error('never finished');
  };

  it('derives the slug, keeps it, and checks branch, URL and provided contents with the reference words', async () => {
    const r = await repo('My Config-Repo 1', { provided_contents: ['extras.configcontext'] });
    expect(r).toMatchObject({ slug: 'my_config_repo_1', branch: 'main', current_head: '', secrets_group: null, provided_contents: ['extras.configcontext'] });
    expect((await t().patch(`/api/extras/git-repositories/${r.id}/`, { slug: 'other' }).expect(400)).body).toEqual({
      non_field_errors: ['Slug cannot be changed once set. Current slug is my_config_repo_1, requested slug is other'],
    });
    const refuse = async (body: object) => (await t().post('/api/extras/git-repositories/', { name: 'Refused', remote_url: 'https://git.invalid/r.git', ...body }).expect(400)).body;
    expect(await refuse({ branch: '--upload-pack=evil' })).toEqual({ branch: ["Invalid branch '--upload-pack=evil': must not start with '-'"] });
    expect(await refuse({ branch: 'a b' })).toEqual({ branch: ["Invalid branch 'a b': must not contain whitespace"] });
    expect(await refuse({ remote_url: 'ssh://git.invalid/r.git' })).toEqual({ remote_url: ['Enter a valid URL.'] });
    expect(await refuse({ provided_contents: ['extras.nothing'] })).toEqual({ provided_contents: ['"extras.nothing" is not a valid choice.'] });
    expect(await refuse({ slug: 'import' })).toEqual({ slug: ["Please choose a different slug; 'import' is a reserved keyword"] });
    expect(await refuse({ slug: 'sys' })).toEqual({ slug: ["Please choose a different slug; 'sys' is a Python builtin"] });
    // No two repositories of one remote provide the same content.
    expect(await refuse({ remote_url: 'https://git.invalid/My-Config-Repo-1.git', provided_contents: ['extras.job', 'extras.configcontext'] })).toEqual({
      non_field_errors: ['Another Git repository already configured for remote URL https://git.invalid/My-Config-Repo-1.git provides contents overlapping with this repository.'],
    });
    await post('/api/extras/git-repositories/', { name: 'Same remote, other contents', remote_url: 'https://git.invalid/My-Config-Repo-1.git', provided_contents: ['extras.job'] });
    expect((await t().get('/api/extras/git-repositories/?name=Refused').expect(200)).body.count).toBe(0);
    expect((await t().options('/api/extras/git-repositories/').expect(200)).body.actions.POST.provided_contents).toBeDefined();
  });

  it('queues a sync job that fails with the reason when the remote cannot be reached', async () => {
    const r = await repo('Unreachable');
    const res = await t().post(`/api/extras/git-repositories/${r.id}/sync/`, {}).expect(200);
    expect(res.body.message).toBe('Repository Unreachable sync job added to queue.');
    expect(res.body.job_result).toMatchObject({ name: 'Git Repository: Sync', status: { value: 'PENDING' } });
    const done = await finished(res.body.job_result.id);
    expect(done.status.value).toBe('FAILURE');
    const logs = (await t().get(`/api/extras/job-results/${done.id}/logs/`).expect(200)).body;
    const messages = logs.map((l: { message: string }) => l.message).join('\n');
    expect(messages).toContain('Unable to reach the remote repository https://git.invalid/Unreachable.git: ');
    expect((await t().get(`/api/extras/git-repositories/${r.id}/`).expect(200)).body.current_head).toBe('');
  });

  it('needs the change permission and the repository within its scope', async () => {
    const shown = await repo('Scoped shown');
    const other = await repo('Scoped other');
    const viewer = await t().userWith('git-viewer', [{ types: ['extras.gitrepository'], actions: ['view'] }]);
    expect((await t().post(`/api/extras/git-repositories/${shown.id}/sync/`, {}, viewer).expect(403)).body).toEqual({ detail: 'This user does not have permission to make changes to Git repositories.' });
    const changer = await t().userWith('git-changer', [{ types: ['extras.gitrepository'], actions: ['view', 'change'], constraints: { name: 'Scoped shown' } }]);
    await t().post(`/api/extras/git-repositories/${other.id}/sync/`, {}, changer).expect(404);
    await t().post(`/api/extras/git-repositories/${shown.id}/sync/`, {}, changer).expect(200);
    await t().post('/api/extras/git-repositories/00000000-0000-4000-8000-000000000000/sync/', {}).expect(404);
  });

  it('shows the links of a job and its queues as objects, made and removed with the job queues', async () => {
    const [a, b] = (await t().post('/api/extras/job-queues/', [{ name: 'JQA e2e a' }, { name: 'JQA e2e b' }]).expect(201)).body;
    const [job] = await seedJobs(t(), [{ module_name: 'e2e.jqa', job_class_name: 'Linked', name: 'JQA e2e job', grouping: 'e2e', job_queues: [a.id] }]);
    const links = async () => (await t().get(`/api/extras/job-queue-assignments/?job=${job.id}`).expect(200)).body.results;
    const first = await links();
    expect(first.map((l: { job_queue: { id: string } }) => l.job_queue.id)).toEqual([a.id]);
    expect(first[0].display).toBe('JQA e2e job: JQA e2e a');
    await t().patch(`/api/extras/jobs/${job.id}/`, { job_queues: [a.id, b.id] }).expect(200);
    const second = await links();
    // The link that stays is the same object.
    expect(second.map((l: { id: string }) => l.id)).toContain(first[0].id);
    expect(second).toHaveLength(2);
    await t().del(`/api/extras/job-queue-assignments/${first[0].id}/`).expect(204);
    expect((await t().get(`/api/extras/jobs/${job.id}/`).expect(200)).body.job_queues.map((q: { id: string }) => q.id)).toEqual([b.id]);
    expect((await t().post('/api/extras/job-queue-assignments/', { job: job.id, job_queue: b.id }).expect(400)).body).toEqual({ non_field_errors: ['The fields job, job_queue must make a unique set.'] });
    expect((await t().get(`/api/extras/job-queue-assignments/?job_queue=JQA e2e b&q=e2e job`).expect(200)).body.count).toBe(1);
  });
});
