import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

/** One person as one source of record describes them, with the last message it sent. */
@Entity('identity_externalidentity')
export class ExternalIdentity extends BaseModelEntity {
  @Column('uuid', { name: 'source_id' }) sourceId: string;
  /** The source's own id of the person (the URL segment of the intake endpoint). */
  @Column({ length: 255, name: 'sor_id' }) sorId: string;
  /** Formatted first name of the message. */
  @Column({ length: 255 }) name: string;
  /** First email address of the message. */
  @Column({ length: 254 }) email: string;
  @Column('uuid', { name: 'user_id', nullable: true }) userId: string | null;
  /** A (active) or D (deleted by the source). */
  @Column({ length: 2 }) status: string;
  /** The role of the lowest rank in the last message. */
  @Column('uuid', { name: 'primary_role_id', nullable: true }) primaryRoleId: string | null;
  /** The last message, as sent (unknown members included). */
  @Column({ type: 'json' }) message: Record<string, unknown>;
  /** SHA-256 of the canonical JSON of the message: an identical re-send changes nothing. */
  @Column({ length: 64, name: 'message_hash' }) messageHash: string;
  @Column({ type: Date, name: 'last_received' }) lastReceived: Date;
  /**
   * What effective status needs of every role (code, window, grace end, affiliation and the
   * status last applied to the user), kept with the roles in the same transaction.
   */
  @Column({ type: 'json', name: 'role_summary' }) roleSummary: unknown[];
  /** Status of the identity as last applied to its user's groups and activity. */
  @Column({ length: 20, name: 'applied_status' }) appliedStatus: string;
  /** The groups this identity gave its user when last applied (so an unmapped group is taken back). */
  @Column({ type: 'json', name: 'applied_groups' }) appliedGroups: string[];
  /** Next instant a role's effective status changes; the user's access is re-applied then. */
  @Column({ type: Date, name: 'next_transition', nullable: true }) nextTransition: Date | null;
}
