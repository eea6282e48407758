import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';
import { BytesColumn } from '../../../database/dialect-column';

/**
 * An address as 16 bytes (ip.ts) with its mask length and family; text for string lookups.
 * `namespace_id` is the parent prefix's namespace, kept with the address so that uniqueness
 * and containment queries need no join.
 */
@Entity('ipam_ipaddress')
export class IpAddress extends CustomFieldModelEntity {
  @BytesColumn(16) host: Buffer;
  @Column('integer', { name: 'mask_length' }) maskLength: number;
  @Column('integer', { name: 'ip_version' }) ipVersion: number;
  @Column({ length: 45, name: 'host_text' }) hostText: string;
  @Column({ length: 50 }) type: string;
  @Column('uuid', { name: 'status_id' }) statusId: string;
  @Column('uuid', { name: 'role_id', nullable: true }) roleId: string | null;
  @Column('uuid', { name: 'parent_id', nullable: true }) parentId: string | null;
  @Column('uuid', { name: 'namespace_id' }) namespaceId: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId: string | null;
  @Column('uuid', { name: 'nat_inside_id', nullable: true }) natInsideId: string | null;
  @Column({ length: 255, name: 'dns_name' }) dnsName: string;
  @Column({ length: 255 }) description: string;
}
