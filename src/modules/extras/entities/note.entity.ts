import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('extras_note')
export class Note extends BaseModelEntity {
  @Column({ length: 100, name: 'assigned_object_type' }) assignedObjectType: string;
  @Column('uuid', { name: 'assigned_object_id' }) assignedObjectId: string;
  @Column('uuid', { name: 'user_id', nullable: true }) userId: string | null;
  @Column({ length: 150, name: 'user_name' }) userName: string;
  @Column('text') note: string;
}
