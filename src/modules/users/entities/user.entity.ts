import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('users_user')
export class User extends BaseModelEntity {
  @Column({ length: 150 }) username: string;
  /** scrypt hash; empty for users that authenticate with tokens only. */
  @Column({ length: 256 }) password: string;
  @Column({ length: 150, name: 'first_name' }) firstName: string;
  @Column({ length: 150, name: 'last_name' }) lastName: string;
  @Column({ length: 254 }) email: string;
  @Column({ type: Boolean, name: 'is_active' }) isActive: boolean;
  @Column({ type: Boolean, name: 'is_staff' }) isStaff: boolean;
  @Column({ type: Boolean, name: 'is_superuser' }) isSuperuser: boolean;
  @Column({ type: Date, name: 'date_joined' }) dateJoined: Date;
  @Column({ type: Date, name: 'last_login', nullable: true }) lastLogin: Date | null;
  @Column({ type: 'json', name: 'config_data' }) configData: Record<string, unknown>;
  /**
   * From when the user status providers must be consulted at authentication (null: never).
   * Not an API field: the providers keep it (see core/auth/user-status.ts); created by the
   * identity migration, whose app registers the only provider.
   */
  @Column({ type: Date, name: 'status_check_after', nullable: true }) statusCheckAfter: Date | null;
}
