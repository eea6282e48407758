/**
 * What a plugin builds on (docs/plugins.md): the same declarations netkeel's own apps use. A
 * plugin imports from here (a plugin package: from `netkeel/dist/src/plugin-api`, netkeel being
 * its peer dependency), so that its models join the one registry of the running process.
 */
export { definePlugin } from './core/plugins/plugin';
export type { NetkeelPlugin, PluginInput, PluginMeta, MigrationClass } from './core/plugins/plugin';
export type { AppInput } from './core/resource/app';
export { defineResource, model, objectType, listPath } from './core/resource/definition';
export type { ResourceDefinition, WriteState, WriteContext } from './core/resource/definition';
export { field } from './core/resource/fields';
export { named, tree } from './core/resource/mixin';
// Jobs: a job is a provider of the app marked `@Job({...})` (src/modules/extras/jobs/job.ts).
export { Job, JobFailed, vars } from './modules/extras/jobs';
export type { JobRun, NetkeelJob, JobMeta } from './modules/extras/jobs';
// Events (docs/plugins.md): broker classes EVENT_BROKERS may name (definePlugin's `eventBrokers`),
// and the app's brokers, which a provider injects to register a broker or publish a topic.
export { EventBroker, EventBrokers, EventBrokerImproperlyConfigured, SyslogEventBroker } from './core/events';
export type { EventBrokerClass, TopicFilter } from './core/events';
