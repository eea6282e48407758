import { DynamicModule, Global, Module } from '@nestjs/common';
import { Settings } from './settings';
import { withServerSecret } from './server-secret';

export const SETTINGS = Symbol('SETTINGS');
/** The clock requests see (tests inject a fixed or movable one). */
export const CLOCK = Symbol('CLOCK');
export type Clock = () => Date;

@Global()
@Module({})
export class SettingsModule {
  static forRoot(settings: Settings, clock: Clock = () => new Date()): DynamicModule {
    return {
      module: SettingsModule,
      providers: [
        // SECRET_KEY is always set from here on (see withServerSecret).
        { provide: SETTINGS, useValue: withServerSecret(settings) },
        { provide: CLOCK, useValue: clock },
      ],
      exports: [SETTINGS, CLOCK],
    };
  }
}
