import { ident, sql } from '../../../database/sql';
import { unscoped } from '../../../core/resource/query/rows';
import { Job, JobFailed, JobRetry, type JobRun, type NetkeelJob } from '../jobs/job';
import { webhookResource } from '../resources/webhook.resource';
import { deliverWebhook, renderInSandbox, type WebhookContext, type WebhookTarget } from './deliver';
import { webhookPolicy } from './policy';

export const DELIVERY_JOB = { module: 'netkeel.webhooks', className: 'DeliverWebhook' } as const;

/** Seconds before the next attempt after `attempt` failed: 10, 20, 40... at most 10 minutes (WEBHOOK_RETRY_SECONDS is the first). */
export const retryDelaySeconds = (base: number, attempt: number) => Math.min(base * 2 ** (attempt - 1), 600);

/**
 * Sends one webhook request for one change (queued by the change listener in the write's
 * transaction, so only a committed change is ever sent). Its job result is the delivery's log:
 * SUCCESS with the receiver's status, RETRY while attempts remain after a network error, 408,
 * 429 or 5xx (each attempt's line in its log), FAILURE in the end or at once for a request that
 * cannot succeed (a URL the policy blocks, a template that fails, another 4xx).
 */
@Job({
  ...DELIVERY_JOB,
  name: 'Webhook Delivery',
  grouping: 'System',
  description: 'Sends a webhook request for an object change (queued by netkeel; cannot be run by hand).',
  hasSensitiveVariables: false,
  hidden: true,
  system: true,
})
export class DeliverWebhookJob implements NetkeelJob {
  async run(run: JobRun, data: { webhook: string; context: WebhookContext }) {
    const settings = run.ctx.settings;
    const [row] = await run.ctx.db.query(sql`SELECT * ${unscoped(webhookResource).from(sql`${ident('id')} = ${String(data.webhook)}`)}`);
    if (!row) throw new JobFailed('The webhook no longer exists: nothing was sent.');
    const object = { display: String(row.name), url: run.ctx.detailUrl(webhookResource, String(row.id)) };
    if (!row.enabled) {
      run.warning('The webhook is disabled: nothing was sent.', object);
      return { sent: false };
    }
    const hook: WebhookTarget = { ...(row as unknown as WebhookTarget), ssl_verification: !!row.ssl_verification };
    const out = await deliverWebhook(hook, data.context, { policy: webhookPolicy(settings), render: renderInSandbox, timeoutMs: settings.WEBHOOK_TIMEOUT * 1000 });
    if (out.ok) {
      run.success(`${data.context.model} ${data.context.event}: ${out.message}`, object);
      return { sent: true, status: out.status, attempt: run.attempt };
    }
    if (out.retry && run.attempt < settings.WEBHOOK_ATTEMPTS) {
      const wait = retryDelaySeconds(settings.WEBHOOK_RETRY_SECONDS, run.attempt);
      throw new JobRetry(`${out.message} Attempt ${run.attempt} of ${settings.WEBHOOK_ATTEMPTS}; trying again in ${wait} s.`, wait * 1000);
    }
    throw new JobFailed(`${out.message}${out.retry ? ` Gave up after ${run.attempt} attempts.` : ''}`);
  }
}
