import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_vlan')
export class Vlan extends CustomFieldModelEntity {
  @Column('integer') vid: number;
  @Column({ length: 255 }) name: string;
  @Column('uuid', { name: 'status_id' }) statusId: string;
  @Column('uuid', { name: 'role_id', nullable: true }) roleId: string | null;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId: string | null;
  @Column('uuid', { name: 'vlan_group_id', nullable: true }) vlanGroupId: string | null;
  @Column({ length: 255 }) description: string;
}
