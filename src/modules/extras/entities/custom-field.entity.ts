import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('extras_customfield')
export class CustomField extends BaseModelEntity {
  @Column({ length: 50 }) label: string;
  @Column({ length: 50 }) key: string;
  @Column({ length: 50 }) type: string;
  @Column({ length: 255 }) grouping: string;
  @Column({ length: 200 }) description: string;
  @Column({ type: Boolean }) required: boolean;
  @Column({ length: 50, name: 'filter_logic' }) filterLogic: string;
  @Column({ type: 'json', nullable: true }) default: unknown;
  @Column({ type: 'int' }) weight: number;
  @Column({ type: 'bigint', nullable: true, name: 'validation_minimum' }) validationMinimum: number | null;
  @Column({ type: 'bigint', nullable: true, name: 'validation_maximum' }) validationMaximum: number | null;
  @Column({ length: 500, name: 'validation_regex' }) validationRegex: string;
  @Column({ type: Boolean, name: 'advanced_ui' }) advancedUi: boolean;
}
