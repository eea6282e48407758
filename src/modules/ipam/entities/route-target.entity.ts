import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_routetarget')
export class RouteTarget extends CustomFieldModelEntity {
  @Column({ length: 21 }) name: string;
  @Column({ length: 255 }) description: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId: string | null;
}
