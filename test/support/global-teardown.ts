import { rmSync } from 'node:fs';

/** Removes the migrated PGlite template that global-setup.ts wrote for this run (~45 MB each). */
export default async function globalTeardown(): Promise<void> {
  const file = process.env.NETKEEL_PGLITE_TEMPLATE;
  if (file) rmSync(file, { force: true });
}
