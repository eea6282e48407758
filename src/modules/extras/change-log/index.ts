/** The change log's surface for other apps (jobs: the cleanup; job hooks and webhooks: the listeners). */
export { cleanupChangeLog } from './cleanup';
export { changeLogExtension, isChangeLogged, storedData, type ChangeRecord } from './extension';
export { onChanges, type ChangeEvent, type ChangeListener } from './listeners';
