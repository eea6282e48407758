import { field } from '../../../core/resource/fields';
import { mixin, named } from '../../../core/resource/mixin';

/** What statuses, tags and roles share (Nautobot's NameColorContentTypesModel): a unique name, a colour, a description. */
export const nameColor = () => [
  named(),
  mixin({ fields: () => ({ color: field.color({ default: '9e9e9e', maxLength: 6 }), description: field.string({ maxLength: 200 }) }), first: true }),
];
