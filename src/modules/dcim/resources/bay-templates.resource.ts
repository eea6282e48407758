import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { componentTemplate } from './component-template';

/** Device bay and module bay templates of a device type. */
export const deviceBayTemplateResource = defineResource({
  app: 'dcim',
  model: 'devicebaytemplate',
  slug: 'device-bay-templates',
  verboseName: 'device bay template',
  mixins: [componentTemplate({ modular: false })],
  fields: {},
  rules(s) {
    const type = s.related('device_type');
    if (type && type.subdevice_role !== 'parent') {
      return { __all__: [`Subdevice role of device type (${type.model}) must be set to "parent" to allow device bays.`] };
    }
  },
});

/** A slot for modules in every device of a device type or every module of a module type; a module family says which modules fit. */
export const moduleBayTemplateResource = defineResource({
  app: 'dcim',
  model: 'modulebaytemplate',
  slug: 'module-bay-templates',
  verboseName: 'module bay template',
  display: (r, h) => `${(h.related('device_type') ?? h.related('module_type'))?.model ?? ''} (${r.name})`,
  displayUses: { device_type: ['model'], module_type: ['model'] },
  mixins: [componentTemplate()],
  fields: {
    position: field.string({ maxLength: 255, help: 'The position of the module bay within the device or module' }),
    module_family: field.foreignKey(model('dcim.modulefamily'), { nullable: true, onDelete: 'protect', help: 'Module family that can be installed in this bay. Leave blank for no restriction.' }),
    requires_first_party_modules: field.boolean({ help: 'This bay will only accept modules from the same manufacturer as the parent device or module' }),
  },
  search: ['device_type__manufacturer__name', 'device_type__model', 'module_type__manufacturer__name', 'module_type__model', 'position'],
  features: ['customFields'],
});
