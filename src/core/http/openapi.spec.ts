import { compareVersions, fieldRequired, inVersions } from '../resource/fields';
import type { Field } from '../resource/fields';
import { documentKind } from './docs.controller';
import { operationId, tagOf } from './openapi';

describe('API version ranges', () => {
  it('compares versions as numbers and includes both ends of a range', () => {
    expect(compareVersions('2.10', '2.4')).toBeGreaterThan(0);
    expect(['2.0', '2.1', '2.2', '2.4'].filter((v) => inVersions({ max: '2.1' }, v))).toEqual(['2.0', '2.1']);
    expect(['2.0', '2.1', '2.2', '2.4'].filter((v) => inVersions({ min: '2.2' }, v))).toEqual(['2.2', '2.4']);
    expect(inVersions(undefined, '2.0')).toBe(true);
  });

  it('requires a field in the versions that say so', () => {
    const location = { kind: 'm2m', name: 'location', requiredVersions: { max: '2.1' } } as unknown as Field;
    expect(['2.0', '2.1', '2.2'].map((v) => fieldRequired(location, v))).toEqual([true, true, false]);
    expect(fieldRequired({ ...location, required: true, requiredVersions: undefined } as Field, '2.4')).toBe(true);
  });
});

describe('OpenAPI names', () => {
  it('spells operation ids as drf-spectacular does', () => {
    expect(operationId('/api/dcim/locations/', 'get', true)).toBe('dcim_locations_list');
    expect(operationId('/api/dcim/locations/', 'patch', false, true)).toBe('dcim_locations_bulk_partial_update');
    expect(operationId('/api/dcim/locations/{id}/', 'delete', false)).toBe('dcim_locations_destroy');
    expect(operationId('/api/ipam/prefixes/{id}/available-ips/', 'post', false)).toBe('ipam_prefixes_available_ips_create');
    expect(operationId('/api/identity/sources/{slug}/identities/{sorId}/', 'put', false)).toBe('identity_sources_identities_update');
    expect(operationId('/api/status/', 'get', false)).toBe('status_retrieve');
  });

  it('tags a path with its app', () => {
    expect(tagOf('/api/dcim/locations/')).toBe('dcim');
    expect(tagOf('/api/plugins/example/things/')).toBe('plugins');
    expect(tagOf('/login/')).toBe('login');
  });

  it('answers /api/swagger/ in the format asked for, YAML by default as the reference does', () => {
    expect(documentKind(undefined, undefined)).toBe('yaml');
    expect(documentKind('*/*', undefined)).toBe('yaml');
    expect(documentKind('application/json; version=2.0', undefined)).toBe('json');
    expect(documentKind('text/html,application/xhtml+xml,*/*;q=0.8', undefined)).toBe('html');
    expect(documentKind('application/json', 'openapi')).toBe('yaml');
    expect(documentKind(undefined, 'openapi-json')).toBe('json');
    expect(documentKind(undefined, 'xml')).toBeNull();
  });
});
