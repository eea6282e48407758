import { Logger } from '@nestjs/common';
import { EventBroker, EventBrokerImproperlyConfigured, type TopicFilter } from './broker';

type Method = 'debug' | 'verbose' | 'log' | 'warn' | 'error' | 'fatal';

/** The levels OPTIONS.level takes: Python's names and numbers (the reference's `level=logging.INFO`) and the app's own names. */
const LEVELS: Record<string, Method> = {
  debug: 'debug',
  '10': 'debug',
  verbose: 'verbose',
  info: 'log',
  log: 'log',
  '20': 'log',
  warning: 'warn',
  warn: 'warn',
  '30': 'warn',
  error: 'error',
  '40': 'error',
  critical: 'fatal',
  fatal: 'fatal',
  '50': 'fatal',
};

/**
 * The reference's SyslogEventBroker: each event is a line of the application's log, under the
 * context `nautobot.events.<topic>`, its payload as JSON indented by 4, at OPTIONS.level (default
 * info; shown when LOG_LEVEL lets that level through).
 */
export class SyslogEventBroker extends EventBroker {
  readonly level: Method;

  constructor(options: Record<string, unknown> = {}, topics: TopicFilter = {}) {
    super(topics);
    const unknown = Object.keys(options).filter((k) => k !== 'level');
    if (unknown.length) throw new EventBrokerImproperlyConfigured(`unknown OPTIONS for syslog: ${unknown.join(', ')} (it takes \`level\`)`);
    const given = options.level ?? 'info';
    const level = typeof given === 'string' || typeof given === 'number' ? LEVELS[String(given).toLowerCase()] : undefined;
    if (!level) throw new EventBrokerImproperlyConfigured(`OPTIONS \`level\` must be debug, info, warning, error or critical (or 10-50), not ${JSON.stringify(given)}`);
    this.level = level;
  }

  publish(topic: string, payload: string): void {
    new Logger(`nautobot.events.${topic}`)[this.level](JSON.stringify(JSON.parse(payload), null, 4));
  }
}
