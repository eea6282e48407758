import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_ipaddresstointerface')
export class IpAddressToInterface extends BaseModelEntity {
  @Column('uuid', { name: 'ip_address_id' }) ipAddressId: string;
  @Column('uuid', { name: 'interface_id', nullable: true }) interfaceId: string | null;
  @Column('uuid', { name: 'vm_interface_id', nullable: true }) vmInterfaceId: string | null;
  @Column({ type: Boolean, name: 'is_source' }) isSource: boolean;
  @Column({ type: Boolean, name: 'is_destination' }) isDestination: boolean;
  @Column({ type: Boolean, name: 'is_default' }) isDefault: boolean;
  @Column({ type: Boolean, name: 'is_preferred' }) isPreferred: boolean;
  @Column({ type: Boolean, name: 'is_primary' }) isPrimary: boolean;
  @Column({ type: Boolean, name: 'is_secondary' }) isSecondary: boolean;
  @Column({ type: Boolean, name: 'is_standby' }) isStandby: boolean;
}
