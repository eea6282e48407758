import { Logger } from '@nestjs/common';
import { loadSettings, SettingsError } from '../../config/settings';
import { EventBroker, EventBrokerImproperlyConfigured, EventBrokerNotFound } from './broker';
import { eventBrokerClasses } from './event-brokers';
import { loadEventBrokers } from './settings';
import { SyslogEventBroker } from './syslog.broker';

class Recorder extends EventBroker {
  constructor(
    readonly options: Record<string, unknown>,
    topics: ConstructorParameters<typeof EventBroker>[0],
  ) {
    super(topics);
  }
  publish(): void {}
}
class NotABroker {
  publish(): void {}
}

const CLASSES = new Map<string, any>([...eventBrokerClasses([]), ['recorder', Recorder], ['impostor', NotABroker]]);
const problem = (value: unknown) => {
  try {
    loadEventBrokers(value, CLASSES);
  } catch (e) {
    return `${(e as Error).constructor.name}: ${(e as Error).message}`;
  }
  return 'none';
};

describe('EVENT_BROKERS', () => {
  it("refuses malformed settings with the reference's messages", () => {
    expect(problem({ TestEventBroker: { CLASS: 'recorder', TOPICS: [] } })).toBe(
      "EventBrokerImproperlyConfigured: TestEventBroker Malformed Event Broker Settings: Expected `TOPICS` to be a 'dict', instead a 'list' was provided",
    );
    expect(problem({ TestEventBroker: { CLASS: 'recorder', TOPICS: null } })).toBe(
      "EventBrokerImproperlyConfigured: TestEventBroker Malformed Event Broker Settings: Expected `TOPICS` to be a 'dict', instead a 'NoneType' was provided",
    );
    expect(problem({ TestEventBroker: { CLASS: 'recorder', TOPICS: { INCLUDE: 'nautobot.test.*' } } })).toBe(
      "EventBrokerImproperlyConfigured: TestEventBroker Malformed Event Broker Settings: Expected `INCLUDE` to be a 'list' or 'tuple', instead a 'str' was provided",
    );
    expect(problem({ TestEventBroker: { CLASS: 'recorder', TOPICS: { EXCLUDE: 'nautobot.test.*' } } })).toBe(
      "EventBrokerImproperlyConfigured: TestEventBroker Malformed Event Broker Settings: Expected `EXCLUDE` to be a 'list' or 'tuple', instead a 'str' was provided",
    );
    expect(problem({ TestEventBroker: { CLASS: 'recorder', TOPICS: { EXCLUDE: { a: 1 } } } })).toMatch(/Expected `EXCLUDE` to be a 'list' or 'tuple', instead a 'dict' was provided$/);
    expect(problem({ TestEventBroker: { CLASS: 'recorder', TOPICS: { INCLUDE: ['nautobot.*', 3] } } })).toMatch(/Expected each of `INCLUDE` to be a 'str', instead a 'int' was provided$/);
    expect(problem({ TestEventBroker: { CLASS: 'no.such.Broker' } })).toBe('EventBrokerNotFound: Unable to import Event Broker TestEventBroker.');
    expect(problem({ TestEventBroker: { TOPICS: {} } })).toBe('EventBrokerNotFound: Unable to import Event Broker TestEventBroker.');
    expect(problem({ TestEventBroker: { CLASS: 'impostor' } })).toBe(
      'EventBrokerImproperlyConfigured: TestEventBroker Malformed Event Broker Settings: Broker provided is not an EventBroker',
    );
    expect(problem({ TestEventBroker: { CLASS: 'recorder', OPTIONS: [] } })).toMatch(/Expected `OPTIONS` to be a 'dict', instead a 'list' was provided$/);
    expect(problem({ TestEventBroker: 'syslog' })).toMatch(/^EventBrokerImproperlyConfigured: TestEventBroker Malformed Event Broker Settings: Expected the broker's settings to be a 'dict', instead a 'str' was provided$/);
    expect(problem(['syslog'])).toMatch(/EVENT_BROKERS must be a JSON object of brokers by name, not a 'list'/);
  });

  it('makes each broker of its class with its OPTIONS and TOPICS; empty or false topics are the defaults, as the reference reads them', () => {
    const [[name, made]] = loadEventBrokers({ bus: { CLASS: 'recorder', OPTIONS: { url: 'x' }, TOPICS: { INCLUDE: ['nautobot.create.*'], EXCLUDE: ['*.extras.*'] } } }, CLASSES);
    expect(name).toBe('bus');
    expect(made).toBeInstanceOf(Recorder);
    expect((made as Recorder).options).toEqual({ url: 'x' });
    expect([made.includeTopics, made.excludeTopics]).toEqual([['nautobot.create.*'], ['*.extras.*']]);
    expect(['nautobot.create.dcim.device', 'nautobot.create.extras.tag', 'nautobot.update.dcim.device'].map((t) => made.admits(t))).toEqual([true, false, false]);
    for (const topics of [undefined, {}, { INCLUDE: [], EXCLUDE: [] }, { INCLUDE: '', EXCLUDE: null }, { INCLUDE: false }]) {
      const [[, b]] = loadEventBrokers({ any: { CLASS: 'recorder', TOPICS: topics } }, CLASSES);
      expect([b.includeTopics, b.excludeTopics, b.admits('anything.at.all')]).toEqual([['*'], [], true]);
    }
    expect(loadEventBrokers({}, CLASSES)).toEqual([]);
  });

  it('knows syslog, whose level is an option it checks', () => {
    const [[, syslog]] = loadEventBrokers({ log: { CLASS: 'syslog', OPTIONS: { level: 'warning' } } }, CLASSES);
    expect(syslog).toBeInstanceOf(SyslogEventBroker);
    expect((syslog as SyslogEventBroker).level).toBe('warn');
    expect((loadEventBrokers({ log: { CLASS: 'syslog', OPTIONS: { level: 40 } } }, CLASSES)[0][1] as SyslogEventBroker).level).toBe('error');
    expect((loadEventBrokers({ log: { CLASS: 'syslog' } }, CLASSES)[0][1] as SyslogEventBroker).level).toBe('log');
    expect(problem({ log: { CLASS: 'syslog', OPTIONS: { level: 'loud' } } })).toBe(
      'EventBrokerImproperlyConfigured: log Malformed Event Broker Settings: OPTIONS `level` must be debug, info, warning, error or critical (or 10-50), not "loud"',
    );
    expect(problem({ log: { CLASS: 'syslog', OPTIONS: { url: 'redis://x' } } })).toBe('EventBrokerImproperlyConfigured: log Malformed Event Broker Settings: unknown OPTIONS for syslog: url (it takes `level`)');
  });

  it('logs each event under nautobot.events.<topic>, its payload indented by 4, at its level', () => {
    const lines: [string, string, string][] = [];
    const spies = (['log', 'warn'] as const).map((m) =>
      jest.spyOn(Logger.prototype, m).mockImplementation(function (this: Logger, ...args: unknown[]) {
        lines.push([m, (this as unknown as { context: string }).context, String(args[0])]);
      }),
    );
    try {
      new SyslogEventBroker({}, {}).publish('nautobot.test.event', '{"a":1,"b":[true]}');
      new SyslogEventBroker({ level: 'warning' }, {}).publish('nautobot.other', '{"x":null}');
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    expect(lines).toEqual([
      ['log', 'nautobot.events.nautobot.test.event', '{\n    "a": 1,\n    "b": [\n        true\n    ]\n}'],
      ['warn', 'nautobot.events.nautobot.other', '{\n    "x": null\n}'],
    ]);
  });

  it('refuses two classes of one name (a plugin cannot take syslog)', () => {
    const plugin = (name: string, pkg: string) => ({ package: pkg, eventBrokers: { [name]: Recorder } }) as any;
    expect(eventBrokerClasses([plugin('kafka', 'a')]).get('kafka')).toBe(Recorder);
    expect(() => eventBrokerClasses([plugin('syslog', 'a')])).toThrow('PLUGINS: a: the event broker class syslog is taken');
    expect(() => eventBrokerClasses([plugin('kafka', 'a'), plugin('kafka', 'b')])).toThrow('PLUGINS: b: the event broker class kafka is taken');
  });

  it('is read at start-up as JSON, its shape checked there, its value never shown', () => {
    expect(loadSettings({}).EVENT_BROKERS).toEqual({});
    const set = { log: { CLASS: 'syslog', TOPICS: { INCLUDE: ['nautobot.*'] } } };
    expect(loadSettings({ EVENT_BROKERS: JSON.stringify(set) }).EVENT_BROKERS).toEqual(set);
    const message = (value: string) => {
      try {
        loadSettings({ EVENT_BROKERS: value });
      } catch (e) {
        expect(e).toBeInstanceOf(SettingsError);
        return (e as Error).message;
      }
      return 'none';
    };
    expect(message('{"bus": {"CLASS": "x", "OPTIONS": {"password": "hunter2"}, "TOPICS": []}}')).toBe(
      "Invalid configuration:\n  EVENT_BROKERS: bus Malformed Event Broker Settings: Expected `TOPICS` to be a 'dict', instead a 'list' was provided (got a value that is not shown)",
    );
    expect(message('{"bus": ')).toMatch(/^Invalid configuration:\n {2}EVENT_BROKERS: EVENT_BROKERS must be JSON: .+ \(got a value that is not shown\)$/);
    expect(message('[]')).toMatch(/EVENT_BROKERS must be a JSON object/);
    // The class is found when the app starts (plugins define classes): not here.
    expect(loadSettings({ EVENT_BROKERS: '{"bus": {"CLASS": "kafka"}}' }).EVENT_BROKERS).toEqual({ bus: { CLASS: 'kafka' } });
  });

  it('are start-up errors: one line, no stack', () => {
    expect(new EventBrokerNotFound('x')).toBeInstanceOf(Error);
    expect(Object.getPrototypeOf(EventBrokerImproperlyConfigured).name).toBe('StartupError');
  });
});
