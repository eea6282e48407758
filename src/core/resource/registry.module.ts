import { DynamicModule, Global, Module } from '@nestjs/common';
import type { TableSchema } from '../../database/schema/schema';
import type { ResourceDefinition } from './definition';
import type { ModelExtension } from './extension';
import { ResourceRegistry } from './registry';

@Global()
@Module({})
export class RegistryModule {
  /** `rootLinks`: special endpoints each app's API root lists beside its models, by app label. */
  static forRoot(defs: ResourceDefinition[], tables: TableSchema[] = [], extensions: ModelExtension[] = [], rootLinks: Record<string, string[]> = {}): DynamicModule {
    const make = () => {
      const r = ResourceRegistry.sealed(defs, tables, extensions);
      for (const [app, links] of Object.entries(rootLinks)) r.addRootLinks(app, links);
      return r;
    };
    return { module: RegistryModule, providers: [{ provide: ResourceRegistry, useFactory: make }], exports: [ResourceRegistry] };
  }
}
