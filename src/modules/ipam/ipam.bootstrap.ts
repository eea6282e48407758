import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { newId } from '../../core/ids';
import { markSeeded, unseeded } from '../../core/resource/seed';
import { Db } from '../../database/db';
import { ident, join, sql } from '../../database/sql';
import { GLOBAL_NAMESPACE, GLOBAL_NAMESPACE_DESCRIPTION } from './resources/common';

const SEED = `ipam.namespace:${GLOBAL_NAMESPACE}`;

/** Creates the Global namespace on the first start, once: an operator may rename or delete it later. */
@Injectable()
export class IpamBootstrap implements OnApplicationBootstrap {
  constructor(private readonly db: Db) {}

  async onApplicationBootstrap(): Promise<void> {
    // Instances starting together race for the namespace's name: the loser runs again and finds it.
    await this.db.retryingTransaction(async (tx) => {
      if (!(await unseeded(tx, [SEED])).size) return;
      const [existing] = await tx.query(sql`SELECT ${ident('id')} FROM ${ident('ipam_namespace')} WHERE ${ident('name')} = ${GLOBAL_NAMESPACE}`);
      if (!existing) {
        const now = new Date();
        const cols = ['id', 'name', 'description', 'location_id', 'created', 'last_updated', '_custom_field_data'];
        await tx.execute(
          sql`INSERT INTO ${ident('ipam_namespace')} (${join(cols.map((c) => ident(c)))}) VALUES (${newId()}, ${GLOBAL_NAMESPACE}, ${GLOBAL_NAMESPACE_DESCRIPTION}, ${null}, ${now}, ${now}, ${'{}'})`,
        );
      }
      await markSeeded(tx, [SEED]);
    });
  }
}
