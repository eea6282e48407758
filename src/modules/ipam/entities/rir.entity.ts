import { Column, Entity } from 'typeorm';
import { CustomFieldModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_rir')
export class Rir extends CustomFieldModelEntity {
  @Column({ length: 255 }) name: string;
  @Column({ type: Boolean, name: 'is_private' }) isPrivate: boolean;
  @Column({ length: 255 }) description: string;
}
