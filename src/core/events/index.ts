/** Event notifications (the reference's nautobot.core.events): what apps publish through and plugins build on. */
export { EventBroker, EventBrokerImproperlyConfigured, EventBrokerNotFound, type EventBrokerClass, type TopicFilter } from './broker';
export { EventBrokers, EVENT_BROKERS, eventBrokersOf } from './event-brokers';
export { SyslogEventBroker } from './syslog.broker';
export { eventBrokerSettings, loadEventBrokers } from './settings';
export { topicPattern } from './topics';
