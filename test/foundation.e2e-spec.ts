import { APPS } from '../src/app.module';
import { eachDatabase } from '../src/core/testing/harness';

eachDatabase('foundation', (t) => {
  it('serves the API root to an authenticated user', async () => {
    const res = await t().get('/api/').expect(200);
    // Every app, and status, in alphabetical order.
    expect(Object.keys(res.body)).toEqual([...APPS.map((a) => a.label), 'status'].sort());
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['circuits', 'dcim', 'extras', 'ipam', 'tenancy', 'users', 'virtualization', 'cloud', 'wireless']));
    expect(res.headers['api-version']).toBe('2.4');
  });
});
