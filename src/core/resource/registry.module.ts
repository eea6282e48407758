import { DynamicModule, Global, Module } from '@nestjs/common';
import type { ResourceDefinition } from './definition';
import { ResourceRegistry } from './registry';

@Global()
@Module({})
export class RegistryModule {
  static forRoot(defs: ResourceDefinition[]): DynamicModule {
    return { module: RegistryModule, providers: [{ provide: ResourceRegistry, useFactory: () => new ResourceRegistry(defs) }], exports: [ResourceRegistry] };
  }
}
