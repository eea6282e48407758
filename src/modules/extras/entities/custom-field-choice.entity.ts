import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('extras_customfieldchoice')
export class CustomFieldChoice extends BaseModelEntity {
  @Column('uuid', { name: 'custom_field_id' }) customFieldId: string;
  @Column({ length: 100 }) value: string;
  @Column({ type: 'int' }) weight: number;
}
