import { Injectable, OnModuleInit } from '@nestjs/common';
import { definePlugin, EventBroker, EventBrokers, Job, type JobRun, type NetkeelJob, type TopicFilter } from '../../../src/plugin-api';
import { CsvService } from '../../../src/core/resource/csv/csv.service';

type Obj = Record<string, any>;

/** A broker class a plugin defines (EVENT_BROKERS names it `memory`): keeps every event it is given, parsed. */
export class MemoryEventBroker extends EventBroker {
  readonly events: { topic: string; payload: Obj }[] = [];
  constructor(
    readonly options: Record<string, unknown>,
    topics: TopicFilter,
  ) {
    super(topics);
  }
  publish(topic: string, payload: string): void {
    this.events.push({ topic, payload: JSON.parse(payload) as Obj });
  }
}

/** A plugin's provider that registers a broker instance of its own at start: the user events only. */
@Injectable()
export class UserEventsWatcher implements OnModuleInit {
  readonly broker = new MemoryEventBroker({}, { include: ['nautobot.users.*', 'nautobot.admin.*'] });
  constructor(private readonly brokers: EventBrokers) {}
  onModuleInit(): void {
    this.brokers.register(this.broker, 'event-test-users');
  }
}

/** A job hook receiver that writes an object of the type it hears of (a tag): without the guard against hook loops, its own write would run it again, and again. */
@Job({ module: 'netkeel_event_test.jobs', className: 'TagEcho', name: 'Tag echo', grouping: 'Event test', description: 'Creates a tag for each tag change it hears of.', hasSensitiveVariables: false, receiver: 'hook' })
export class TagEchoJob implements NetkeelJob {
  constructor(private readonly csv: CsvService) {}
  async run(run: JobRun, data: { object_id?: string }) {
    await this.csv.importCreate(run.ctx, run.ctx.registry.get('extras.tag')!, Buffer.from(`name\necho of ${data.object_id}`), new Map());
    return null;
  }
}

/** The events suite's plugin (test/extras/events.e2e-spec.ts): an event broker class and a broker registered by code, no models. */
export const plugin = definePlugin({
  package: 'netkeel-event-test',
  verboseName: 'Event test',
  version: '0.0.1',
  baseUrl: 'eventtest',
  apps: [{ label: 'eventtest', resources: [], providers: [UserEventsWatcher, TagEchoJob], exports: [UserEventsWatcher] }],
  eventBrokers: { memory: MemoryEventBroker },
});
