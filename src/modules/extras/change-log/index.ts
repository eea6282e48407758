/** The change log's surface for other apps (jobs: the cleanup; job hooks and webhooks: the listeners). */
export { cleanupChangeLog } from './cleanup';
export { changeLogExtension, storedData, type ChangeRecord } from './extension';
export { isChangeLogged } from '../resources/object-change.resource';
export { onChanges, type ChangeEvent, type ChangeListener } from './listeners';
