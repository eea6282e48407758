import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('tenancy_tenantgroup')
export class TenantGroup extends CustomFieldModelEntity {
  @Column({ length: 100 }) name: string;
  @Column({ length: 200 }) description: string;
  @Column('uuid', { name: 'parent_id', nullable: true }) parentId: string | null;
}
