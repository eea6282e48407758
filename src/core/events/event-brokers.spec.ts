import { Logger } from '@nestjs/common';
import { EventBroker, type TopicFilter } from './broker';
import { eventBrokerClasses, EventBrokers, EVENT_BROKERS } from './event-brokers';
import { loadEventBrokers } from './settings';

class Recorder extends EventBroker {
  events: [string, string][] = [];
  constructor(topics: TopicFilter = {}) {
    super(topics);
  }
  publish(topic: string, payload: string): void {
    this.events.push([topic, payload]);
  }
}

/** Brokers of an app with nothing configured; `afterCommit` runs what a transaction would run once it commits. */
function brokers(settings: Record<string, unknown> = {}) {
  const pending: (() => void)[] = [];
  const provided = new Map<string, unknown>();
  const b = new EventBrokers(loadEventBrokers(settings, eventBrokerClasses([])), { afterCommit: (fn: () => void) => pending.push(fn) } as never, { provide: (k: string, v: unknown) => provided.set(k, v) } as never);
  return { b, provided, commit: () => pending.splice(0).forEach((fn) => fn()) };
}

describe('EventBrokers', () => {
  let errors: string[];
  let warnings: string[];
  let spies: jest.SpyInstance[];
  beforeEach(() => {
    errors = [];
    warnings = [];
    spies = [
      jest.spyOn(Logger.prototype, 'error').mockImplementation((m: unknown) => void errors.push(String(m))),
      jest.spyOn(Logger.prototype, 'warn').mockImplementation((m: unknown) => void warnings.push(String(m))),
    ];
  });
  afterEach(() => spies.forEach((s) => s.mockRestore()));

  it('hands each topic, as JSON made once, to the registered brokers whose patterns admit it', () => {
    const { b, provided } = brokers();
    expect(provided.get(EVENT_BROKERS)).toBe(b);
    const all = new Recorder();
    const creates = new Recorder({ include: ['nautobot.create.*'], exclude: ['*.extras.*'] });
    b.publish('nautobot.create.dcim.device', { a: 1 });
    expect(all.events).toEqual([]);
    expect(b.admits('nautobot.create.dcim.device')).toBe(false);
    b.register(all);
    b.register(creates);
    b.register(all);
    expect(warnings).toEqual(['Tried to register event broker Recorder but it was already registered']);
    expect(b.admits('nautobot.create.dcim.device')).toBe(true);
    b.publish('nautobot.create.dcim.device', { a: 1, at: new Date('2030-01-01T00:00:00Z') });
    b.publish('nautobot.create.extras.tag', { b: 2 });
    expect(all.events).toEqual([
      ['nautobot.create.dcim.device', '{"a":1,"at":"2030-01-01T00:00:00.000Z"}'],
      ['nautobot.create.extras.tag', '{"b":2}'],
    ]);
    expect(creates.events).toEqual([['nautobot.create.dcim.device', '{"a":1,"at":"2030-01-01T00:00:00.000Z"}']]);
    // One text for every broker.
    expect(creates.events[0][1]).toBe(all.events[0][1]);
    b.deregister(all);
    b.deregister(all);
    expect(warnings[1]).toBe("Tried to deregister event broker Recorder but it wasn't previously registered");
    b.publish('nautobot.create.extras.tag', { b: 3 });
    expect(all.events).toHaveLength(2);
    expect(b.admits('nautobot.create.extras.tag')).toBe(false);
    expect(b.list()).toEqual([creates]);
  });

  it('logs a broker that throws or rejects, and still hands the event to the others', async () => {
    const { b } = brokers();
    const throwing = new (class Throwing extends EventBroker {
      publish(): void {
        throw new Error('bus down');
      }
    })();
    const rejecting = new (class Rejecting extends EventBroker {
      async publish(): Promise<void> {
        throw new Error('timed out');
      }
    })();
    const after = new Recorder();
    b.register(throwing, 'primary');
    b.register(rejecting);
    b.register(after);
    expect(() => b.publish('nautobot.jobs.job.started', { x: 1 })).not.toThrow();
    await new Promise((r) => setImmediate(r));
    expect(after.events).toEqual([['nautobot.jobs.job.started', '{"x":1}']]);
    expect(errors).toEqual(['Event broker primary failed to publish nautobot.jobs.job.started: bus down', 'Event broker Rejecting failed to publish nautobot.jobs.job.started: timed out']);
    // A payload that is not JSON is logged, not thrown.
    b.publish('nautobot.bad', { n: 1n });
    expect(errors[2]).toMatch(/^Event nautobot\.bad was not published: its payload is not JSON/);
  });

  it('publishes after the commit, building a lazy payload only then', () => {
    const { b, commit } = brokers();
    const r = new Recorder();
    b.register(r);
    let built = 0;
    b.publishAfterCommit('t.one', () => ({ built: ++built }));
    b.publishAfterCommit('t.two', { plain: true });
    expect([r.events, built]).toEqual([[], 0]);
    commit();
    expect(r.events).toEqual([
      ['t.one', '{"built":1}'],
      ['t.two', '{"plain":true}'],
    ]);
    b.publishAfterCommit('t.three', () => {
      throw new Error('no payload');
    });
    expect(() => commit()).not.toThrow();
    expect(errors).toEqual(['Event t.three was not published: no payload']);
  });

  it('registers the brokers EVENT_BROKERS configures, by name', () => {
    const { b } = brokers({ log: { CLASS: 'syslog', TOPICS: { INCLUDE: ['nautobot.jobs.*'] } } });
    expect(b.list().map((x) => [x.constructor.name, x.includeTopics])).toEqual([['SyslogEventBroker', ['nautobot.jobs.*']]]);
    expect([b.admits('nautobot.jobs.job.started'), b.admits('nautobot.create.dcim.device')]).toEqual([true, false]);
    expect(() => brokers({ log: { CLASS: 'kafka' } })).toThrow('Unable to import Event Broker log.');
  });
});
