import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('users_objectpermission')
export class ObjectPermission extends BaseModelEntity {
  @Column({ length: 100 }) name: string;
  @Column({ length: 200 }) description: string;
  @Column({ type: Boolean }) enabled: boolean;
  @Column({ type: 'json' }) actions: string[];
  @Column({ type: 'json', nullable: true }) constraints: unknown;
}
