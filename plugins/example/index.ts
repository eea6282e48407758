import { definePlugin } from '../../src/plugin-api';
import { maintenanceWindowResource } from './maintenance-window.resource';
import { MaintenanceWindows1795606193511 as PostgresMaintenanceWindows } from './migrations/postgres/1795606193511-maintenance-windows';
import { MaintenanceWindows1795606193511 as MysqlMaintenanceWindows } from './migrations/mysql/1795606193511-maintenance-windows';

/**
 * The example plugin (docs/plugins.md): maintenance windows at locations, served at
 * `/api/plugins/maintenance/maintenance-windows/`. Load it with `PLUGINS=./plugins/example`
 * (from the source tree under the tests; `./dist/plugins/example` when built).
 */
export const plugin = definePlugin({
  package: 'netkeel-example-maintenance',
  verboseName: 'Maintenance windows',
  version: '1.0.0',
  description: 'Planned maintenance windows at locations (the netkeel example plugin).',
  author: 'netkeel',
  authorEmail: 'netkeel@example.org',
  baseUrl: 'maintenance',
  apps: [{ label: 'maintenance', resources: [maintenanceWindowResource] }],
  // Written by `npm run migration:generate -- maintenance-windows --plugin ./dist/plugins/example --out plugins/example/migrations`.
  migrations: { postgres: [PostgresMaintenanceWindows], mysql: [MysqlMaintenanceWindows] },
});
