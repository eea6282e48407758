import { Module } from '@nestjs/common';
import { createResourceController } from '../../core/resource/resource-controller.factory';
import { Role } from './entities/role.entity';
import { Status } from './entities/status.entity';
import { Tag } from './entities/tag.entity';
import { ExtrasBootstrap } from './extras.bootstrap';
import { ExtrasCustomFieldSource } from './custom-field.source';
import { CustomField } from './entities/custom-field.entity';
import { CustomFieldChoice } from './entities/custom-field-choice.entity';
import { Note } from './entities/note.entity';
import { noteResource } from './resources/note.resource';
import { customFieldChoiceResource, customFieldResource } from './resources/custom-field.resource';
import { roleResource } from './resources/role.resource';
import { statusResource } from './resources/status.resource';
import { tagResource } from './resources/tag.resource';

export const extrasResources = [statusResource, tagResource, roleResource, customFieldResource, customFieldChoiceResource, noteResource];
export const extrasEntities = [Status, Tag, Role, CustomField, CustomFieldChoice, Note];

@Module({
  controllers: extrasResources.map(createResourceController),
  providers: [ExtrasBootstrap, ExtrasCustomFieldSource],
})
export class ExtrasModule {}
