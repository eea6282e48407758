import 'reflect-metadata';
import { loadSettings, SettingsError } from './config/settings';
import { createApp } from './bootstrap';
import { compileWasmWithLiftoffOnly } from './database/pglite/wasm-flags';

async function main(): Promise<void> {
  let settings;
  try {
    settings = loadSettings(process.env);
  } catch (e) {
    if (e instanceof SettingsError) {
      process.stderr.write(`netkeel: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  if (!settings.PGLITE_WASM_TIER_UP) compileWasmWithLiftoffOnly();
  const app = await createApp({ settings });
  await app.listen(settings.PORT, settings.HOST);
  process.stdout.write(`netkeel listening on http://${settings.HOST}:${settings.PORT}${settings.BASE_PATH}/api/\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`netkeel: failed to start: ${err.message}\n`);
  process.exit(1);
});
