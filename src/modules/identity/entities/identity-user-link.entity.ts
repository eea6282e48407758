import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

/**
 * A user an identity source may link its identities to: one it created, one an administrator
 * linked to it, or one it matched under its `link_existing` rule. Every identity's user has
 * the link of the identity's source.
 */
@Entity('identity_userlink')
export class IdentityUserLink extends BaseModelEntity {
  @Column('uuid', { name: 'source_id' }) sourceId: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  /** created, admin, matched or legacy (linked before links were recorded). */
  @Column({ length: 16 }) origin: string;
}
