import { Column, Entity } from 'typeorm';
import { BaseModelEntity } from '../../../core/entities/base.entity';

@Entity('ipam_vrfprefixassignment')
export class VrfPrefixAssignment extends BaseModelEntity {
  @Column('uuid', { name: 'vrf_id' }) vrfId: string;
  @Column('uuid', { name: 'prefix_id' }) prefixId: string;
}
