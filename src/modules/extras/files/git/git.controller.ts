import { Controller, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../../../core/auth/decorators';
import { ApiResponse } from '../../../../core/http/api-response';
import { ContextFactory } from '../../../../core/http/context.factory';
import type { NkRequest } from '../../../../core/http/request';
import { PermissionDeniedError } from '../../../../core/resource/errors';
import { unscoped } from '../../../../core/resource/query/rows';
import { ResourceService } from '../../../../core/resource/resource.service';
import { ident, sql } from '../../../../database/sql';
import { DEFAULT_QUEUE } from '../../jobs/choices';
import { JobQueue } from '../../jobs/job-queue';
import { jobQueueResource } from '../../jobs/resources/job-queue.resource';
import { jobResultResource } from '../../jobs/resources/job-result.resource';
import { jobResource } from '../../jobs/resources/job.resource';
import { gitRepositoryResource } from './git-repository.resource';
import { SYNC_JOB } from './sync.job';

/**
 * `POST /api/extras/git-repositories/<id>/sync/`: queues the "Git Repository: Sync" job for the
 * repository and answers `{message, job_result}` (200), as the reference. Any authenticated user
 * may ask; they need `extras.change_gitrepository` (403 with the reference's message), and the
 * repository within their change scope (404 otherwise).
 */
@ApiTags('extras')
@ApiParam({ name: 'id', description: 'The Git repository (UUID or natural key)' })
@Controller('api/extras/git-repositories/:id/sync')
export class GitSyncController {
  constructor(
    private readonly contexts: ContextFactory,
    private readonly resources: ResourceService,
    private readonly queue: JobQueue,
  ) {}

  @Post()
  @ApiOkResponse({ description: 'The sync is queued: its job result' })
  @ApiOperation({ summary: 'Enqueue pull git repository and refresh data.' })
  @Authenticated()
  async sync(@Req() req: NkRequest) {
    const ctx = this.contexts.create(req);
    const allowed = await ctx.permissions.constraints(ctx.principal, 'extras.gitrepository', 'change');
    if (allowed !== null && !allowed.length) throw new PermissionDeniedError('This user does not have permission to make changes to Git repositories.');
    const repo = await this.resources.findOne(ctx, ctx.db, gitRepositoryResource, String(req.params.id), 'change');
    const result = await ctx.db.transaction(async (tx) => {
      const [job] = await tx.query(
        sql`SELECT j.*, q.${ident('id')} AS ${ident('queue_id')}, q.${ident('name')} AS ${ident('queue_name')} FROM ${unscoped(jobResource, 'j').table}
            LEFT JOIN ${unscoped(jobQueueResource, 'q').table} ON q.${ident('id')} = j.${ident('default_job_queue_id')}
            WHERE j.${ident('module_name')} = ${SYNC_JOB.module} AND j.${ident('job_class_name')} = ${SYNC_JOB.className}`,
      );
      const [id] = await this.queue.enqueue(tx, [
        { job, userId: ctx.principal.user?.id ?? null, data: { repository: String(repo.id) }, queue: { id: String(job.queue_id), name: String(job.queue_name ?? DEFAULT_QUEUE) } },
      ]);
      return (await this.resources.readBack(ctx, tx, jobResultResource, [id]))[0];
    });
    this.queue.onQueued();
    return new ApiResponse(200, { message: `Repository ${repo.name} sync job added to queue.`, job_result: result });
  }
}
