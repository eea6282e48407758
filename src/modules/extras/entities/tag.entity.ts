import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('extras_tag')
export class Tag extends CustomFieldModelEntity {
  @Column({ length: 100 }) name: string;
  @Column({ length: 6 }) color: string;
  @Column({ length: 200 }) description: string;
}
