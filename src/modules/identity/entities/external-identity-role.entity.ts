import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

/** One role of an external identity, matched across messages by its roleIdentifier. */
@Entity('identity_externalidentityrole')
export class ExternalIdentityRole extends BaseModelEntity {
  @Column('uuid', { name: 'identity_id' }) identityId: string;
  @Column({ length: 255, name: 'role_identifier' }) roleIdentifier: string;
  @Column({ length: 255 }) affiliation: string;
  /** A, D, D2, GP or S, as sent (or the source's status_on_delete once the role is missing). */
  @Column({ length: 2 }) status: string;
  /** When the code last changed. */
  @Column({ type: Date, name: 'status_since' }) statusSince: Date;
  @Column({ type: Date, name: 'grace_until', nullable: true }) graceUntil: Date | null;
  @Column({ type: 'integer', nullable: true }) rank: number | null;
  @Column({ type: Date, name: 'valid_from', nullable: true }) validFrom: Date | null;
  @Column({ type: Date, name: 'valid_through', nullable: true }) validThrough: Date | null;
  @Column({ length: 255 }) title: string;
  @Column({ length: 255 }) organization: string;
  @Column({ length: 255 }) department: string;
  /** Since when the role has been missing from the messages (null: in the last one). */
  @Column({ type: Date, name: 'missing_since', nullable: true }) missingSince: Date | null;
  /** The role object as last sent. */
  @Column({ type: 'json' }) data: Record<string, unknown>;
}
