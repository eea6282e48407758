import { CustomFilter, CustomFilterHelpers, defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { named } from '../../../core/resource/mixin';
import { FALSE, ident, sql, Sql } from '../../../database/sql';
import { manufacturerResource } from './manufacturer.resource';

/** A classification of module types: a module bay of a family takes only module types of that family. */
export const moduleFamilyResource = defineResource({
  app: 'dcim',
  model: 'modulefamily',
  slug: 'module-families',
  verboseName: 'module family',
  verboseNamePlural: 'module families',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255 }),
    module_type_count: field.count('dcim.moduletype', 'module_family'),
    module_bay_count: field.count('dcim.modulebay', 'module_family'),
  },
  search: ['description', 'module_types__model', 'module_types__manufacturer__name'],
  filterAliases: { module_bay_id: 'module_bays' },
  features: ['tags', 'customFields', 'notes'],
});

/**
 * The reference's `compatible_with_module_bay` (one module bay id): what a bay of a module
 * family takes (`familyColumn` in that family); every object for a bay without a family.
 */
export function compatibleWithModuleBay(familyColumn: (h: CustomFilterHelpers) => Sql | Promise<Sql>): CustomFilter {
  return {
    compile: async (values, _l, h) => {
      const [bay] = await h.resolveIds(model('dcim.modulebay')(), values.slice(-1));
      // A bay that names nothing (a constraint's unknown name) is compatible with nothing.
      if (!bay) return FALSE;
      const family = (await h.rows(model('dcim.modulebay')(), 'mb')).select('module_family_id', sql`${ident('mb', 'id')} = ${bay}`);
      return sql`(${family} IS NULL OR ${await familyColumn(h)} = ${family})`;
    },
  };
}

/**
 * A make and model of module (a line card, a supervisor, a transceiver): its manufacturer,
 * family and the component templates from which its modules get their ports, interfaces and
 * module bays.
 */
export const moduleTypeResource = defineResource({
  app: 'dcim',
  model: 'moduletype',
  slug: 'module-types',
  verboseName: 'module type',
  naturalKey: ['manufacturer', 'model'],
  filterName: 'model',
  ordering: ['manufacturer', 'model'],
  display: (r, h) => `${h.related('manufacturer')?.name ?? ''} ${r.model}`,
  displayUses: { manufacturer: ['name'] },
  fields: {
    manufacturer: field.foreignKey(() => manufacturerResource, { required: true, onDelete: 'protect', relatedName: 'module_types' }),
    module_family: field.foreignKey(() => moduleFamilyResource, { nullable: true, onDelete: 'protect', relatedName: 'module_types' }),
    model: field.string({ required: true, maxLength: 255 }),
    part_number: field.string({ maxLength: 255, help: 'Discrete part number (optional)' }),
    comments: field.text(),
  },
  uniqueTogether: [{ fields: ['manufacturer', 'model'] }],
  search: ['manufacturer__name', 'model', 'part_number', 'comments'],
  filters: {
    compatible_with_module_bay: compatibleWithModuleBay((h) => h.col('module_family_id')),
  },
  features: ['tags', 'customFields', 'notes'],
});
