import { Controller, Get } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { reason } from '../../database/connect';
import { Public } from '../auth/decorators';
import { ApiResponse } from './api-response';

/**
 * Probes for orchestrators and load balancers, without credentials: `/health/` says the process
 * serves (liveness); `/ready/` that the database answers and every migration is applied
 * (readiness), else 503 naming what is not.
 */
@Controller()
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('health')
  @Public()
  health() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  async ready() {
    try {
      await this.dataSource.query('SELECT 1');
    } catch (e) {
      return new ApiResponse(503, { status: 'unavailable', detail: `The database does not answer: ${reason(e)}` });
    }
    if (await this.dataSource.showMigrations()) return new ApiResponse(503, { status: 'unavailable', detail: 'Migrations are pending.' });
    return { status: 'ready' };
  }
}
