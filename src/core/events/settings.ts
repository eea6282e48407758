import { EventBroker, EventBrokerClass, EventBrokerImproperlyConfigured, EventBrokerNotFound } from './broker';

/** One entry of EVENT_BROKERS, checked: what `loadEventBrokers` makes a broker of. */
export interface EventBrokerSetting {
  name: string;
  className: unknown;
  options: Record<string, unknown>;
  include: string[] | null;
  exclude: string[] | null;
}

/** A JSON value's type as Python names the type of what `json.loads` makes of it (the reference's messages name those). */
export function pythonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  return 'dict';
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Python's truth of a JSON value: what the reference's `if include_topics and ...` tests. */
const truthy = (v: unknown) => !(v === null || v === undefined || v === false || v === 0 || v === '' || (Array.isArray(v) && !v.length) || (isDict(v) && !Object.keys(v).length));

function malformed(name: string, message: string): EventBrokerImproperlyConfigured {
  return new EventBrokerImproperlyConfigured(`${name} Malformed Event Broker Settings: ${message}`);
}

function topicList(name: string, key: 'INCLUDE' | 'EXCLUDE', v: unknown): string[] | null {
  if (!truthy(v)) return null;
  if (!Array.isArray(v)) throw malformed(name, `Expected \`${key}\` to be a 'list' or 'tuple', instead a '${pythonTypeName(v)}' was provided`);
  const wrong = v.find((p) => typeof p !== 'string');
  if (wrong !== undefined) throw malformed(name, `Expected each of \`${key}\` to be a 'str', instead a '${pythonTypeName(wrong)}' was provided`);
  return v as string[];
}

/**
 * EVENT_BROKERS checked as the reference's load_event_brokers checks it, with its messages:
 * `{"<name>": {"CLASS": "syslog", "OPTIONS": {...}, "TOPICS": {"INCLUDE": [...], "EXCLUDE": [...]}}}`.
 * Beyond the reference (which fails on them with a Python error): the whole value and each entry
 * must be objects, OPTIONS too, and topic patterns are strings.
 */
export function eventBrokerSettings(value: unknown): EventBrokerSetting[] {
  if (!isDict(value)) throw new EventBrokerImproperlyConfigured(`EVENT_BROKERS must be a JSON object of brokers by name, not a '${pythonTypeName(value)}'`);
  return Object.entries(value).map(([name, broker]) => {
    if (!isDict(broker)) throw malformed(name, `Expected the broker's settings to be a 'dict', instead a '${pythonTypeName(broker)}' was provided`);
    const options = broker.OPTIONS === undefined ? {} : broker.OPTIONS;
    if (!isDict(options)) throw malformed(name, `Expected \`OPTIONS\` to be a 'dict', instead a '${pythonTypeName(options)}' was provided`);
    const topics = broker.TOPICS === undefined ? {} : broker.TOPICS;
    if (!isDict(topics)) throw malformed(name, `Expected \`TOPICS\` to be a 'dict', instead a '${pythonTypeName(topics)}' was provided`);
    return { name, className: broker.CLASS, options, include: topicList(name, 'INCLUDE', topics.INCLUDE), exclude: topicList(name, 'EXCLUDE', topics.EXCLUDE) };
  });
}

/**
 * The brokers EVENT_BROKERS configures, by name, made from the classes that exist (`syslog`, and
 * those plugins define): an unknown CLASS is the reference's "Unable to import Event Broker
 * <name>.", options a class refuses are a malformed setting naming the broker.
 */
export function loadEventBrokers(value: unknown, classes: ReadonlyMap<string, EventBrokerClass>): [string, EventBroker][] {
  return eventBrokerSettings(value).map((s) => {
    const cls = typeof s.className === 'string' ? classes.get(s.className) : undefined;
    if (!cls) throw new EventBrokerNotFound(`Unable to import Event Broker ${s.name}.`);
    let broker: unknown;
    try {
      broker = new cls({ ...s.options }, { include: s.include, exclude: s.exclude });
    } catch (e) {
      throw malformed(s.name, e instanceof Error ? e.message : String(e));
    }
    if (!(broker instanceof EventBroker)) throw malformed(s.name, 'Broker provided is not an EventBroker');
    return [s.name, broker];
  });
}
