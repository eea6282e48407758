import { DynamicModule, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { StartupError } from '../../database/connect';
import { Db } from '../../database/db';
import type { RequestContext } from '../context';
import type { NetkeelPlugin } from '../plugins/plugin';
import { ResourceRegistry } from '../resource/registry';
import type { EventBroker, EventBrokerClass } from './broker';
import { SyslogEventBroker } from './syslog.broker';

/** The key the brokers are registered under with the registry (`registry.provide`), for code that has a context and no injector (a model's hooks). */
export const EVENT_BROKERS = 'events';

/** The event brokers of the context's app (see `EventBrokers`). */
export const eventBrokersOf = (ctx: RequestContext): EventBrokers | undefined => ctx.registry.service<EventBrokers>(EVENT_BROKERS);

/** The brokers EVENT_BROKERS configures, by name (made at start, before anything else: `loadEventBrokers`). */
export const CONFIGURED_EVENT_BROKERS = Symbol('CONFIGURED_EVENT_BROKERS');

/** Topics remembered with the brokers that admit them; forgotten whole past this many. */
const MEMO = 10_000;

/** The broker classes EVENT_BROKERS may name: netkeel's and those the plugins define. */
export function eventBrokerClasses(plugins: NetkeelPlugin[]): Map<string, EventBrokerClass> {
  const classes = new Map<string, EventBrokerClass>([['syslog', SyslogEventBroker]]);
  for (const p of plugins) {
    for (const [name, cls] of Object.entries(p.eventBrokers ?? {})) {
      if (classes.has(name)) throw new StartupError(`PLUGINS: ${p.package}: the event broker class ${name} is taken`);
      classes.set(name, cls);
    }
  }
  return classes;
}

/**
 * The event brokers of this app (the reference's register_event_broker and publish_event): those
 * EVENT_BROKERS configures (made by `AppModule.forRoot`: a bad entry stops the start before the
 * database is opened), and those code registers
 * (a plugin's provider, a test). `publish` hands a topic's payload, as JSON text made once, to
 * every broker whose patterns admit the topic; whatever a broker does wrong is logged and goes no
 * further. Publishers ask `admits` first and build nothing for a topic no broker takes, so a
 * process without brokers does no work for events.
 */
@Injectable()
export class EventBrokers {
  private readonly logger = new Logger('Events');
  private readonly brokers: EventBroker[] = [];
  private readonly names = new Map<EventBroker, string>();
  private readonly memo = new Map<string, EventBroker[]>();

  constructor(
    @Inject(CONFIGURED_EVENT_BROKERS) configured: [string, EventBroker][],
    private readonly db: Db,
    registry: ResourceRegistry,
  ) {
    for (const [name, broker] of configured) this.register(broker, name);
    registry.provide(EVENT_BROKERS, this);
  }

  /** Adds a broker (a second registration of the same one changes nothing); `name` is how the log names it. */
  register(broker: EventBroker, name = broker.constructor.name): void {
    if (this.brokers.includes(broker)) {
      this.logger.warn(`Tried to register event broker ${this.nameOf(broker)} but it was already registered`);
      return;
    }
    this.brokers.push(broker);
    this.names.set(broker, name);
    this.memo.clear();
  }

  deregister(broker: EventBroker): void {
    const i = this.brokers.indexOf(broker);
    if (i < 0) {
      this.logger.warn(`Tried to deregister event broker ${broker.constructor.name} but it wasn't previously registered`);
      return;
    }
    this.brokers.splice(i, 1);
    this.names.delete(broker);
    this.memo.clear();
  }

  /** The registered brokers, in registration order. */
  list(): readonly EventBroker[] {
    return [...this.brokers];
  }

  /** Whether any broker takes the topic: a publisher builds its payload only then. */
  admits(topic: string): boolean {
    return this.receivers(topic).length > 0;
  }

  /**
   * Hands the payload, as JSON, to every broker that takes the topic. Never throws: a payload
   * that is not JSON, a broker that throws or a promise it returns that rejects is logged. Nothing
   * waits for a broker's promise.
   */
  publish(topic: string, payload: unknown): void {
    const receivers = this.receivers(topic);
    if (!receivers.length) return;
    let text: string;
    try {
      text = JSON.stringify(payload) ?? 'null';
    } catch (e) {
      this.logger.error(`Event ${topic} was not published: its payload is not JSON (${message(e)})`);
      return;
    }
    for (const broker of receivers) {
      try {
        const done = broker.publish(topic, text);
        if (done && typeof (done as Promise<void>).then === 'function') (done as Promise<void>).then(undefined, (e: unknown) => this.failed(broker, topic, e));
      } catch (e) {
        this.failed(broker, topic, e);
      }
    }
  }

  /**
   * Publishes once the open transaction commits (at once outside one; never, if it rolls back).
   * `payload` may be a function, called then.
   */
  publishAfterCommit(topic: string, payload: unknown): void {
    this.db.afterCommit(() => {
      try {
        this.publish(topic, typeof payload === 'function' ? (payload as () => unknown)() : payload);
      } catch (e) {
        this.logger.error(`Event ${topic} was not published: ${message(e)}`);
      }
    });
  }

  private receivers(topic: string): EventBroker[] {
    if (!this.brokers.length) return [];
    let found = this.memo.get(topic);
    if (!found) {
      if (this.memo.size >= MEMO) this.memo.clear();
      found = this.brokers.filter((b) => b.admits(topic));
      this.memo.set(topic, found);
    }
    return found;
  }

  private nameOf(broker: EventBroker): string {
    return this.names.get(broker) ?? broker.constructor.name;
  }

  private failed(broker: EventBroker, topic: string, e: unknown): void {
    this.logger.error(`Event broker ${this.nameOf(broker)} failed to publish ${topic}: ${message(e)}`);
  }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The events piece of the app, for every module: its `EventBrokers`, starting with the configured brokers. */
@Global()
@Module({})
export class EventsModule {
  static forRoot(configured: [string, EventBroker][]): DynamicModule {
    return {
      module: EventsModule,
      providers: [{ provide: CONFIGURED_EVENT_BROKERS, useValue: configured }, EventBrokers],
      exports: [EventBrokers],
    };
  }
}
