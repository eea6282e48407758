import { defineResource, model } from '../../../core/resource/definition';
import { field } from '../../../core/resource/fields';
import { link, named } from '../../../core/resource/mixin';
import { secretErrors } from '../secrets/providers';

/** The reference's SecretsGroupAccessTypeChoices. */
export const SECRET_ACCESS_TYPES = [
  ['Generic', 'Generic'],
  ['Console', 'Console'],
  ['gNMI', 'gNMI'],
  ['HTTP(S)', 'HTTP(S)'],
  ['NETCONF', 'NETCONF'],
  ['REST', 'REST'],
  ['RESTCONF', 'RESTCONF'],
  ['SNMP', 'SNMP'],
  ['SSH', 'SSH'],
] as const;

/** The reference's SecretsGroupSecretTypeChoices. */
export const SECRET_TYPES = [
  ['authentication-key', 'Authentication Key'],
  ['authentication-protocol', 'Authentication Protocol'],
  ['key', 'Key'],
  ['notes', 'Notes'],
  ['password', 'Password'],
  ['private-algorithm', 'Private Algorithm'],
  ['private-key', 'Private Key'],
  ['secret', 'Secret'],
  ['token', 'Token'],
  ['url', 'URL'],
  ['username', 'Username'],
] as const;

/**
 * Where a secret (a device password, an API token) can be read, never the value itself: a
 * provider (`environment-variable`, `text-file`) and its parameters, checked as the provider
 * says. The value is read only by `GET /api/extras/secrets/<id>/check/` (secrets/check.controller.ts),
 * which tells whether it can be read, and only from where the operator allowed
 * (SECRETS_ENV_VARIABLES, SECRETS_FILE_ROOT). Parameters are used as written: the reference
 * renders them as Jinja2 templates with an object as context; netkeel does not.
 */
export const secretResource = defineResource({
  app: 'extras',
  model: 'secret',
  slug: 'secrets',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255, filter: false }),
    provider: field.string({ required: true, maxLength: 255 }),
    parameters: field.json({ default: () => ({}) }),
  },
  features: ['tags', 'customFields', 'notes'],
  rules(s) {
    if (!s.create && !s.touched.has('provider') && !s.touched.has('parameters')) return;
    return secretErrors(s.values.provider, s.values.parameters);
  },
});

/**
 * Secrets that serve one purpose together (a device's SSH user name and password), each with
 * its access type and secret type through secrets-groups-associations. `secrets` lists the
 * group's associations (read-only), as the reference shows them; filter `secrets` by a
 * secret's id or name.
 */
export const secretsGroupResource = defineResource({
  app: 'extras',
  model: 'secretsgroup',
  slug: 'secrets-groups',
  verboseName: 'secrets group',
  mixins: [named(255)],
  fields: {
    description: field.string({ maxLength: 255, filter: false }),
    secrets: field.manyToMany(
      model('extras.secretsgroupassociation'),
      { table: 'extras_secretsgroupassociation', source: 'secrets_group_id', target: 'id' },
      { readOnly: true, filter: false, relatedName: '+' },
    ),
  },
  filterAliases: { secrets: 'secrets_group_associations__secret' },
  features: ['customFields', 'notes'],
});

/**
 * A secret in a secrets group for one access type and secret type: a group holds one secret per
 * (access type, secret type), and a secret may serve a group several times.
 */
export const secretsGroupAssociationResource = defineResource({
  app: 'extras',
  model: 'secretsgroupassociation',
  slug: 'secrets-groups-associations',
  verboseName: 'secrets group association',
  verboseNamePlural: 'secrets group associations',
  mixins: [
    link(
      { name: 'secrets_group', target: () => secretsGroupResource, relatedName: 'secrets_group_associations' },
      { name: 'secret', target: () => secretResource, relatedName: 'secrets_group_associations' },
      { unique: ['secrets_group', 'access_type', 'secret_type'] },
    ),
  ],
  naturalKey: ['secrets_group', 'access_type', 'secret_type', 'secret'],
  ordering: ['secrets_group', 'access_type', 'secret_type'],
  // "<group>: <access type> <secret type>: <secret>", as the reference names one.
  display: (r, h) => `${h.related('secrets_group')?.name ?? ''}: ${r.access_type} ${r.secret_type}: ${h.related('secret')?.name ?? ''}`,
  fields: {
    access_type: field.choice(SECRET_ACCESS_TYPES, { required: true, maxLength: 32 }),
    secret_type: field.choice(SECRET_TYPES, { required: true, maxLength: 32 }),
  },
  filterAliases: { secret_id: 'secret' },
  search: ['secrets_group__name', 'secret__name'],
  features: [],
});
