import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { StartupError } from '../../database/connect';

/** Nest's start-up chatter (every route mapped, every module loaded) is debug output for us. */
const FRAMEWORK = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'NestFactory', 'NestApplication']);

export class AppLogger extends ConsoleLogger {
  constructor(private readonly levels: LogLevel[]) {
    super('netkeel', { logLevels: levels });
  }

  /**
   * A start-up failure netkeel explains itself (StartupError: a database that cannot be
   * opened, a secret that does not match) is one line, not a stack; main.ts prints it.
   */
  override error(message: unknown, ...rest: unknown[]): void {
    if (message instanceof StartupError) return;
    super.error(message, ...(rest as [string?, string?]));
  }

  override log(message: unknown, context?: string): void {
    if (context && FRAMEWORK.has(context) && !this.levels.includes('debug')) return;
    super.log(message, context);
  }
}
