import type { TestApp } from '../../src/core/testing/harness';
import { twoDevices } from '../fixtures/dcim-components.fixtures';

/** A deterministic interface id for fixture n. */
export const interfaceId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * Interfaces to assign addresses to: `eth<n>` with the id `interfaceId(n)`, made in one request
 * on devices of their own (two, or four with `devices: 4`, by n), so that deleting one device
 * leaves assignments on the others.
 */
export async function createInterfaces(t: TestApp, label: string, ns: number[], devices: 2 | 4 = 2): Promise<void> {
  const first = await twoDevices(t, label);
  const pool = [first.one, first.two];
  if (devices === 4) {
    const more = await twoDevices(t, `${label} B`);
    pool.push(more.one, more.two);
  }
  await t.post('/api/dcim/interfaces/', ns.map((n) => ({ id: interfaceId(n), device: pool[(n + 1) % pool.length].id, name: `eth${n}`, type: '1000base-t', status: 'Active' }))).expect(201);
}
