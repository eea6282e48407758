import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Browser sessions of the browsable API, stored by the hash of their id. */
@Entity('users_session')
export class Session {
  @PrimaryColumn({ length: 64, name: 'id_hash' }) idHash: string;
  @Column('uuid', { name: 'user_id' }) userId: string;
  @Column({ length: 64 }) csrf: string;
  @Column({ type: Date }) expires: Date;
  @Column({ type: Date }) created: Date;
}
