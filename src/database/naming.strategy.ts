import { DefaultNamingStrategy, NamingStrategyInterface } from 'typeorm';

/** snake_case column names by default (property `lastUpdated` -> column `last_updated`). */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override columnName(propertyName: string, customName: string | undefined, prefixes: string[]): string {
    return customName ?? [...prefixes, propertyName].join('_').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  }
}
