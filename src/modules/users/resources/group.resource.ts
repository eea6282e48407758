import { defineResource } from '../../../core/resource/definition';
import { named } from '../../../core/resource/mixin';

export const groupResource = defineResource({
  app: 'users',
  appLabel: 'auth',
  model: 'group',
  slug: 'groups',
  mixins: [named(150)],
  fields: {},
  features: [],
  neverExempt: true,
  watched: true,
});
