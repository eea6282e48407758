import { Global, Module, Provider, Type } from '@nestjs/common';
import type { TableSchema } from '../../database/schema/schema';
import type { ResourceDefinition } from './definition';
import type { ModelExtension } from './extension';
import { createResourceController } from './resource-controller.factory';

export interface AppInput {
  /** The app's URL segment and label (`dcim`). */
  label: string;
  /** Its models, in the order the API root lists them. */
  resources: ResourceDefinition[];
  /** Tables that are no model's own (sessions, histories, lookup keys). */
  tables?: TableSchema[];
  /** Special endpoints: ordinary small controllers, routed before the generated ones (their paths are deeper). */
  controllers?: Type[];
  providers?: Provider[];
  exports?: (string | symbol | Type)[];
  /** Its providers are visible to every module (the users app's credential store). */
  global?: boolean;
  /** What it adds to every model that takes its features (extension.ts). */
  extensions?: ModelExtension[];
  /** Special endpoints its API root lists beside its models (`config` in users), by URL segment. */
  rootLinks?: string[];
}

export interface NetkeelApp extends AppInput {
  /** The Nest module: the special controllers, a generated controller per model, the providers. */
  module: Type;
}

/**
 * An app of netkeel (built in, or a plugin): its models and what else it brings, as one Nest
 * module. `app.module.ts` lists the apps, one line each; the registry, the schema and the routes
 * follow from them.
 */
export function defineApp(input: AppInput): NetkeelApp {
  class AppModule {}
  Object.defineProperty(AppModule, 'name', { value: `${input.label.charAt(0).toUpperCase()}${input.label.slice(1)}AppModule` });
  Module({
    controllers: [...(input.controllers ?? []), ...input.resources.map(createResourceController)],
    providers: input.providers ?? [],
    exports: input.exports ?? [],
  })(AppModule);
  if (input.global) Global()(AppModule);
  return { ...input, module: AppModule };
}
