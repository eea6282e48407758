/** The change log's surface for other apps (jobs: the cleanup; job hooks and webhooks: the listeners). */
export { cleanupChangeLog } from './cleanup';
export { changeLogExtension, storedData } from './extension';
export { isChangeLogged } from '../resources/object-change.resource';
export { onChanges, type ChangeEvent, type ChangeListener, type ChangeRecord } from './listeners';
