import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_namespace')
export class Namespace extends CustomFieldModelEntity {
  @Column({ length: 255 }) name: string;
  @Column({ length: 255 }) description: string;
  @Column('uuid', { name: 'location_id', nullable: true }) locationId: string | null;
}
