import { ConsoleLogger, LogLevel } from '@nestjs/common';

/** Nest's start-up chatter (every route mapped, every module loaded) is debug output for us. */
const FRAMEWORK = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'NestFactory', 'NestApplication']);

export class AppLogger extends ConsoleLogger {
  constructor(private readonly levels: LogLevel[]) {
    super('netkeel', { logLevels: levels });
  }

  override log(message: unknown, context?: string): void {
    if (context && FRAMEWORK.has(context) && !this.levels.includes('debug')) return;
    super.log(message, context);
  }
}
