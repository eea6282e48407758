import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('users_group')
export class Group extends BaseModelEntity {
  @Column({ length: 150 }) name: string;
}
