import { gitRepositoryResource } from './git/git-repository.resource';
import { GitSyncController } from './git/git.controller';
import { GitRepositorySyncJob } from './git/sync.job';

/** Git repositories, image attachments and file proxies: their models, endpoints and jobs. */
export const filesResources = [gitRepositoryResource];
export const filesControllers = [GitSyncController];
export const filesProviders = [GitRepositorySyncJob];
