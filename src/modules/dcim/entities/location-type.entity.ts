import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('dcim_locationtype')
export class LocationType extends CustomFieldModelEntity {
  @Column({ length: 100 }) name: string;
  @Column({ length: 200 }) description: string;
  @Column({ type: Boolean }) nestable: boolean;
  @Column('uuid', { name: 'parent_id', nullable: true }) parentId: string | null;
}
