import { eachDatabase } from '../src/core/testing/harness';

eachDatabase('foundation', (t) => {
  it('serves the API root to an authenticated user', async () => {
    const res = await t().get('/api/').expect(200);
    expect(Object.keys(res.body)).toEqual(['circuits', 'cloud', 'dcim', 'extras', 'identity', 'ipam', 'status', 'tenancy', 'users']);
    expect(res.headers['api-version']).toBe('2.4');
  });
});
