import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('tenancy_tenant')
export class Tenant extends CustomFieldModelEntity {
  @Column({ length: 100 }) name: string;
  @Column({ length: 200 }) description: string;
  @Column('text') comments: string;
  @Column('uuid', { name: 'tenant_group_id', nullable: true }) tenantGroupId: string | null;
}
