import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';
import { BytesColumn } from '../../../database/dialect-column';

/** A network: first and last address as 16 bytes (ip.ts), length and family; text for string lookups. */
@Entity('ipam_prefix')
export class Prefix extends CustomFieldModelEntity {
  @BytesColumn(16) network: Buffer;
  @BytesColumn(16) broadcast: Buffer;
  @Column('integer', { name: 'prefix_length' }) prefixLength: number;
  @Column('integer', { name: 'ip_version' }) ipVersion: number;
  @Column({ length: 45, name: 'network_text' }) networkText: string;
  @Column({ length: 50 }) type: string;
  @Column('uuid', { name: 'status_id' }) statusId: string;
  @Column('uuid', { name: 'role_id', nullable: true }) roleId: string | null;
  @Column('uuid', { name: 'parent_id', nullable: true }) parentId: string | null;
  @Column('uuid', { name: 'namespace_id' }) namespaceId: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId: string | null;
  @Column('uuid', { name: 'vlan_id', nullable: true }) vlanId: string | null;
  @Column('uuid', { name: 'rir_id', nullable: true }) rirId: string | null;
  @Column({ type: Date, name: 'date_allocated', nullable: true }) dateAllocated: Date | null;
  @Column({ length: 255 }) description: string;
}
