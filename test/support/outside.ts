import { createConnection } from 'mysql2/promise';
import { Client } from 'pg';
import type { TestApp } from '../../src/core/testing/harness';

/**
 * Runs SQL as another process would: on a connection of its own (PostgreSQL, MySQL). Parameters
 * as `$1`, identifiers in double quotes; both are rewritten for MySQL.
 */
export async function outside(t: TestApp, text: string, params: unknown[] = []): Promise<unknown[]> {
  if (t.kind === 'postgres') {
    const c = new Client({ connectionString: t.url });
    await c.connect();
    try {
      return (await c.query(text, params)).rows;
    } finally {
      await c.end();
    }
  }
  const c = await createConnection({ uri: t.url });
  try {
    const ordered: unknown[] = [];
    const mysqlText = text.replace(/\$(\d+)/g, (_, i) => (ordered.push(params[Number(i) - 1]), '?')).replace(/"/g, '`');
    const [rows] = await c.query(mysqlText, ordered);
    return rows as unknown[];
  } finally {
    await c.end();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Retries `check` until it holds or `ms` passed; returns whether it held. */
export async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await sleep(50);
  }
}
