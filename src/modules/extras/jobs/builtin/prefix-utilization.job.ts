import { ResourceService } from '../../../../core/resource/resource.service';
import { Job, JobFailed, JobRun, NetkeelJob } from '../job';
import { vars } from '../variables';

const PAGE = 1000;

/**
 * A report of how full prefixes are: one log line per prefix the user may view (the chosen ones,
 * or all), a warning at or above the threshold; the result counts them.
 */
@Job({
  module: 'netkeel.jobs.reports',
  className: 'PrefixUtilization',
  name: 'Prefix Utilization Report',
  grouping: 'Reports',
  description: 'Logs the utilization of each prefix, warning about those at or above a threshold.',
  hasSensitiveVariables: false,
  readOnly: true,
  variables: {
    prefixes: vars.multiObject('ipam.prefix', { required: false, description: 'Prefixes to report on (default: all)' }),
    threshold: vars.integer({ min_value: 0, max_value: 100, default: 80, description: 'Utilization (percent) from which a prefix is reported as a warning' }),
  },
})
export class PrefixUtilizationJob implements NetkeelJob {
  constructor(private readonly service: ResourceService) {}

  async run(run: JobRun, data: { prefixes: string[]; threshold: number }) {
    const def = run.ctx.registry.get('ipam.prefix');
    if (!def) throw new JobFailed('Prefixes are not installed.');
    let offset = 0;
    let total = 0;
    let over = 0;
    for (;;) {
      const q = new Map<string, string[]>([['limit', [String(PAGE)]], ['offset', [String(offset)]]]);
      if (data.prefixes?.length) q.set('id', data.prefixes);
      const page = await this.service.list(run.ctx, def, q, '/api/ipam/prefixes/');
      for (const p of page.results) {
        const used = Number(p.utilization ?? 0);
        const full = used >= data.threshold;
        if (full) over++;
        run.log(full ? 'warning' : 'info', `${p.display}: ${used}% utilized`, { display: String(p.display), url: String(p.url) }, 'utilization');
      }
      total += page.results.length;
      if (!page.next || !page.results.length) break;
      offset += page.results.length;
    }
    run.success(`${total} prefixes reported, ${over} at or above ${data.threshold}%.`);
    return { prefixes: total, over_threshold: over };
  }
}
