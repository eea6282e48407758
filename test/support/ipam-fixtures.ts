import type { TestApp } from '../../src/core/testing/harness';
import { twoDevices } from '../fixtures/dcim-components.fixtures';

/** A deterministic interface id for fixture n. */
export const interfaceId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/**
 * Interfaces to assign addresses to: `eth<n>` with the id `interfaceId(n)`, made in one request
 * on two devices of their own (`<label> fixture one` the odd, `two` the even), so that deleting
 * one device leaves assignments on the other.
 */
export async function createInterfaces(t: TestApp, label: string, ns: number[]): Promise<void> {
  const { one, two } = await twoDevices(t, label);
  await t.post('/api/dcim/interfaces/', ns.map((n) => ({ id: interfaceId(n), device: n % 2 ? one.id : two.id, name: `eth${n}`, type: '1000base-t', status: 'Active' }))).expect(201);
}
