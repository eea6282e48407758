#!/usr/bin/env node
// `npx netkeel <command>`: the operator's command-line tool (src/cli/netkeel.ts), compiled into
// dist/. A file of its own, executable in the repository, so that npx can link it wherever the
// compiled output is not the user's to chmod (the container image runs as `node`).
'use strict';
let cli;
try {
  cli = require('../dist/src/cli/netkeel.js');
} catch (e) {
  if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('dist/src/cli/netkeel.js')) {
    process.stderr.write('netkeel: not built yet: run `npm run build` (or `npm start`) first\n');
    process.exit(1);
  }
  throw e;
}
cli.run(process.argv.slice(2));
