import type { Fixtures } from '../../src/core/testing/contract/fixture';

/** The contract fixture of the example plugin's model: the model contract covers it when the plugin is loaded. */
export const exampleFixtures: Fixtures = {
  'maintenance.maintenancewindow': {
    setup: async (t) => {
      const type = (await t.post('/api/dcim/location-types/', { name: 'Maintenance fixture type' }).expect(201)).body;
      const [a, b] = (await t.post('/api/dcim/locations/', [1, 2].map((i) => ({ name: `Maintenance fixture site ${i}`, location_type: type.id, status: 'Active' }))).expect(201)).body;
      return { a, b };
    },
    make: (ctx, n) => ({
      name: `Window ${n}`,
      start_time: `2030-0${1 + (n % 9)}-01T0${n % 10}:00:00Z`,
      end_time: `2030-0${1 + (n % 9)}-02T0${n % 10}:30:00Z`,
      status: n % 3 === 2 ? 'completed' : 'scheduled',
      location: n % 2 ? ctx.a.id : ctx.b.id,
      description: n % 2 ? `window ${n}` : '',
    }),
    update: () => ({ description: 'changed', status: 'in-progress' }),
    bulkUpdate: () => ({ status: 'cancelled' }),
    invalid: (ctx) => ({ name: 'backwards', start_time: '2030-01-02T00:00:00Z', end_time: '2030-01-01T00:00:00Z', location: ctx.a.id }),
    choices: { status: ['scheduled', 'in-progress', 'completed', 'cancelled'] },
  },
};
