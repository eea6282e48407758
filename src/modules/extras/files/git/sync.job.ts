import { execFile } from 'node:child_process';
import { ident, sql } from '../../../../database/sql';
import { unscoped } from '../../../../core/resource/query/rows';
import { Job, JobFailed, type JobRun, type NetkeelJob } from '../../jobs/job';
import { vars } from '../../jobs/variables';
import { gitRepositoryResource } from './git-repository.resource';

export const SYNC_JOB = { module: 'netkeel.core.jobs', className: 'GitRepositorySync' } as const;
/** How long asking the remote may take. */
const REMOTE_TIMEOUT_MS = 30_000;

/** `git ls-remote <url> <branch>`: the commit the remote's ref names, or why it could not be asked. */
export function lsRemote(url: string, branch: string): Promise<{ head: string | null } | { error: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['ls-remote', '--', url, branch],
      {
        timeout: REMOTE_TIMEOUT_MS,
        maxBuffer: 1024 * 1024,
        // Never ask for credentials on a terminal, never read the machine's git configuration, http(s) only.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ALLOW_PROTOCOL: 'http:https', GIT_ASKPASS: 'true' },
      },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') return resolve({ error: 'git is not installed on this server: repositories cannot be synchronised.' });
          const why = String(stderr || err.message).trim().split('\n').filter(Boolean).pop() ?? 'unknown error';
          return resolve({ error: (err as { killed?: boolean }).killed ? `the remote did not answer within ${REMOTE_TIMEOUT_MS / 1000} seconds` : why });
        }
        const line = String(stdout).split('\n').find((l) => l.trim());
        resolve({ head: line ? line.split(/\s+/)[0] : null });
      },
    );
  });
}

/**
 * Synchronises a Git repository record with its remote (the reference's "Git Repository: Sync"):
 * asks the remote for the branch's commit and records it as `current_head`. netkeel loads none of
 * the repository's provided contents. A remote that cannot be reached fails the job with the
 * reason in its log; queued by `POST git-repositories/<id>/sync/`.
 */
@Job({
  ...SYNC_JOB,
  name: 'Git Repository: Sync',
  grouping: 'System Jobs',
  description: 'Clones and/or pulls a Git repository, then invokes refresh_datasource_content.',
  hasSensitiveVariables: false,
  variables: { repository: vars.object('extras.gitrepository', { description: 'Git Repository to pull and refresh' }) },
})
export class GitRepositorySyncJob implements NetkeelJob {
  async run(run: JobRun, data: { repository: string }) {
    const [repo] = await run.ctx.db.query(sql`SELECT * ${unscoped(gitRepositoryResource).from(sql`${ident('id')} = ${String(data.repository)}`)}`);
    if (!repo) throw new JobFailed('The Git repository no longer exists.');
    const object = { display: String(repo.name), url: run.ctx.detailUrl(gitRepositoryResource, String(repo.id)) };
    run.info(`Fetching branch ${repo.branch} of ${repo.remote_url}`, object);
    const found = await lsRemote(String(repo.remote_url), String(repo.branch));
    if ('error' in found) throw new JobFailed(`Unable to reach the remote repository ${repo.remote_url}: ${found.error}`);
    if (!found.head) throw new JobFailed(`The remote repository ${repo.remote_url} has no branch or tag named ${repo.branch}.`);
    await run.ctx.db.execute(sql`UPDATE ${unscoped(gitRepositoryResource).table} SET ${ident('current_head')} = ${found.head}, ${ident('last_updated')} = ${run.ctx.now()} WHERE ${ident('id')} = ${String(repo.id)}`);
    run.success(`Repository synchronised: ${repo.branch} is at ${found.head}. netkeel loads none of its provided contents.`, object);
    return { current_head: found.head };
  }
}
