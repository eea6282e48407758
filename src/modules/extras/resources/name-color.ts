import { field } from '../../../core/resource/fields';

/** The fields statuses, tags and roles share (Nautobot's NameColorContentTypesModel). */
export const nameColorFields = () => ({
  name: field.string({ required: true, unique: true }),
  color: field.color({ default: '9e9e9e' }),
  description: field.string(),
});
