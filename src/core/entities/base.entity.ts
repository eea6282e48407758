import { Column, PrimaryColumn } from 'typeorm';

/**
 * Columns every model table has. Entities declare storage for TypeORM's metadata (the
 * registry checks definitions against it); the schema itself comes from the migrations.
 */
export abstract class BaseModelEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ type: Date })
  created: Date;

  @Column({ type: Date, name: 'last_updated' })
  lastUpdated: Date;
}

/** Models that carry custom field data. */
export abstract class CustomFieldModelEntity extends BaseModelEntity {
  @Column({ type: 'json', name: '_custom_field_data' })
  customFieldData: Record<string, unknown>;
}
