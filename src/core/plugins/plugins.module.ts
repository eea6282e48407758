import { DynamicModule, Global, Module } from '@nestjs/common';
import type { NetkeelPlugin } from './plugin';

/** The plugins this process loaded (PLUGINS), in order. */
export const LOADED_PLUGINS = Symbol('LOADED_PLUGINS');

@Global()
@Module({})
export class PluginsModule {
  static forRoot(plugins: NetkeelPlugin[]): DynamicModule {
    return { module: PluginsModule, providers: [{ provide: LOADED_PLUGINS, useValue: plugins }], exports: [LOADED_PLUGINS] };
  }
}
