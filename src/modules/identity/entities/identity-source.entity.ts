import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

/** A source of record (HR, student system, partner directory) that pushes external identities. */
@Entity('identity_identitysource')
export class IdentitySource extends BaseModelEntity {
  @Column({ length: 100 }) name: string;
  @Column({ length: 100 }) slug: string;
  @Column({ length: 200 }) description: string;
  @Column({ type: Boolean }) enabled: boolean;
  /** Identifier `type` whose value becomes the username (else the first email). */
  @Column({ length: 100, name: 'username_identifier_type' }) usernameIdentifierType: string;
  /** affiliation -> group name */
  @Column({ type: 'json', name: 'affiliation_groups' }) affiliationGroups: Record<string, string>;
  /** roleIdentifier -> group name */
  @Column({ type: 'json', name: 'role_groups' }) roleGroups: Record<string, string>;
  /** D, S or GP: what a role missing from a later message becomes. */
  @Column({ length: 2, name: 'status_on_delete' }) statusOnDelete: string;
  @Column({ type: 'integer', name: 'grace_period_days' }) gracePeriodDays: number;
  /** Whether a message's person may be linked to an existing user no source manages (by link_match). */
  @Column({ type: Boolean, name: 'link_existing' }) linkExisting: boolean;
  /** username, email, username_and_email or username_or_email: how link_existing matches a user. */
  @Column({ length: 20, name: 'link_match' }) linkMatch: string;
}
