import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('users_token')
export class Token extends BaseModelEntity {
  @Column('uuid', { name: 'user_id' }) userId: string;
  /** SHA-256 of the key: the key itself is never stored. */
  @Column({ length: 64, name: 'key_hash' }) keyHash: string;
  /** Last six characters of the key, to tell tokens apart. */
  @Column({ length: 6, name: 'key_suffix' }) keySuffix: string;
  @Column({ type: Date, nullable: true }) expires: Date | null;
  @Column({ type: Boolean, name: 'write_enabled' }) writeEnabled: boolean;
  @Column({ length: 200 }) description: string;
}
