import { Job, JobRun, NetkeelJob } from '../job';
import { vars } from '../variables';

/** A job hook receiver that logs each change it is told of: an example, and a hook to start from. */
@Job({
  module: 'netkeel.jobs.receivers',
  className: 'LogObjectChange',
  name: 'Example Job Hook Receiver',
  grouping: 'Receivers',
  description: 'Job hook receiver: logs the object change that triggered it.',
  hasSensitiveVariables: false,
  receiver: 'hook',
})
export class LogObjectChangeJob implements NetkeelJob {
  async run(run: JobRun, data: { action?: string; object_type?: string; object_id?: string }) {
    const def = data.object_type ? run.ctx.registry.get(data.object_type) : undefined;
    const url = def && data.object_id && data.action !== 'delete' ? run.ctx.detailUrl(def, data.object_id) : '';
    run.info(`${data.action ?? 'change'} of ${data.object_type ?? 'an object'} ${data.object_id ?? ''}`.trim(), { display: data.object_id ?? '', url });
    return data;
  }
}

/** A job button receiver that logs the object whose button was pressed. */
@Job({
  module: 'netkeel.jobs.receivers',
  className: 'LogObject',
  name: 'Example Simple Job Button Receiver',
  grouping: 'Receivers',
  description: 'Job button receiver: logs the object it was run for.',
  hasSensitiveVariables: false,
  receiver: 'button',
  variables: {
    object_pk: vars.string({ description: 'The object the button was pressed on' }),
    object_model_name: vars.string({ description: 'Its type (app_label.model)' }),
  },
})
export class LogObjectJob implements NetkeelJob {
  async run(run: JobRun, data: { object_pk: string; object_model_name: string }) {
    const def = run.ctx.registry.get(data.object_model_name);
    run.info(`Button pressed on ${data.object_model_name} ${data.object_pk}`, { display: data.object_pk, url: def ? run.ctx.detailUrl(def, data.object_pk) : '' });
    return { object_pk: data.object_pk };
  }
}
