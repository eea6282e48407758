import { DynamicModule, Global, Module } from '@nestjs/common';
import type { TableSchema } from '../../database/schema/schema';
import type { ResourceDefinition } from './definition';
import type { ModelExtension } from './extension';
import { ResourceRegistry } from './registry';

@Global()
@Module({})
export class RegistryModule {
  static forRoot(defs: ResourceDefinition[], tables: TableSchema[] = [], extensions: ModelExtension[] = []): DynamicModule {
    return { module: RegistryModule, providers: [{ provide: ResourceRegistry, useFactory: () => ResourceRegistry.sealed(defs, tables, extensions) }], exports: [ResourceRegistry] };
  }
}
