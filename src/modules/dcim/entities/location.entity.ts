import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('dcim_location')
export class Location extends CustomFieldModelEntity {
  @Column({ length: 100 }) name: string;
  /** Natural-sort key of the name (digit runs zero-padded), the default ordering. */
  @Column({ length: 255, name: '_name' }) naturalName: string;
  @Column('uuid', { name: 'location_type_id' }) locationTypeId: string;
  @Column('uuid', { name: 'parent_id', nullable: true }) parentId: string | null;
  @Column('uuid', { name: 'status_id' }) statusId: string;
  @Column('uuid', { name: 'tenant_id', nullable: true }) tenantId: string | null;
  @Column({ length: 200 }) description: string;
  @Column({ length: 50 }) facility: string;
  @Column({ type: 'bigint', nullable: true }) asn: number | null;
  @Column({ length: 50, name: 'time_zone' }) timeZone: string;
  @Column('text', { name: 'physical_address' }) physicalAddress: string;
  @Column('text', { name: 'shipping_address' }) shippingAddress: string;
  @Column({ type: 'decimal', precision: 8, scale: 6, nullable: true }) latitude: string | null;
  @Column({ type: 'decimal', precision: 9, scale: 6, nullable: true }) longitude: string | null;
  @Column({ length: 100, name: 'contact_name' }) contactName: string;
  @Column({ length: 50, name: 'contact_phone' }) contactPhone: string;
  @Column({ length: 254, name: 'contact_email' }) contactEmail: string;
  @Column('text') comments: string;
}
