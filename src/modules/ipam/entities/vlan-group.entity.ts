import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_vlangroup')
export class VlanGroup extends CustomFieldModelEntity {
  @Column({ length: 255 }) name: string;
  @Column('uuid', { name: 'location_id', nullable: true }) locationId: string | null;
  @Column({ length: 255 }) description: string;
  @Column({ length: 255 }) range: string;
}
