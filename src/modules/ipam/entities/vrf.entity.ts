import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_vrf')
export class Vrf extends CustomFieldModelEntity {
  @Column({ length: 255 }) name: string;
  @Column({ type: String, length: 21, nullable: true }) rd: string | null;
  @Column('uuid', { name: 'namespace_id' }) namespaceId: string;
  @Column('uuid', { name: 'status_id', nullable: true }) statusId: string | null;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId: string | null;
  @Column({ length: 255 }) description: string;
}
