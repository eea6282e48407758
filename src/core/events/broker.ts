import { StartupError } from '../../database/connect';
import { matchesAny, topicPattern, type TopicPattern } from './topics';

/** Which topics a broker receives: fnmatch patterns (`nautobot.create.*`); include defaults to `["*"]`. */
export interface TopicFilter {
  include?: readonly string[] | null;
  exclude?: readonly string[] | null;
}

/**
 * A receiver of event notifications (the reference's EventBroker): syslog, a message bus, an
 * in-memory list in a test. `publish` gets each topic its patterns admit with the payload as JSON
 * text, after the change it reports has committed. It may return a promise: nobody waits for it,
 * and a broker that throws or rejects is logged, never failing or holding the request.
 */
export abstract class EventBroker {
  readonly includeTopics: readonly string[];
  readonly excludeTopics: readonly string[];
  private readonly include: TopicPattern[];
  private readonly exclude: TopicPattern[];

  constructor(topics: TopicFilter = {}) {
    // As the reference: an empty include list is every topic.
    this.includeTopics = topics.include?.length ? [...topics.include] : ['*'];
    this.excludeTopics = topics.exclude?.length ? [...topics.exclude] : [];
    this.include = this.includeTopics.map(topicPattern);
    this.exclude = this.excludeTopics.map(topicPattern);
  }

  /** Whether this broker receives the topic: an include pattern matches it and no exclude pattern does. */
  admits(topic: string): boolean {
    return matchesAny(this.include, topic) && !matchesAny(this.exclude, topic);
  }

  abstract publish(topic: string, payload: string): void | Promise<void>;
}

/**
 * A broker class that EVENT_BROKERS may name by its CLASS (`syslog`, or one a plugin defines):
 * made with the entry's OPTIONS and its TOPICS. A constructor that refuses its options throws
 * (an `EventBrokerImproperlyConfigured` with what is wrong).
 */
export type EventBrokerClass = new (options: Record<string, unknown>, topics: TopicFilter) => EventBroker;

/** What is wrong with EVENT_BROKERS or a broker class's options: it stops the start with this one line. */
export class EventBrokerImproperlyConfigured extends StartupError {}

/** EVENT_BROKERS names a CLASS that no one defines. */
export class EventBrokerNotFound extends StartupError {}
