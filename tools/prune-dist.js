#!/usr/bin/env node
// Removes compiled files from dist/ whose TypeScript source is gone (tsc writes, never deletes):
// the test runner runs dist/ (jest.config.js), so a deleted or renamed suite must not run on.
const { existsSync, readdirSync, rmSync } = require('node:fs');
const { join, relative } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');

function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(path);
      if (!readdirSync(path).length) rmSync(path, { recursive: true });
      continue;
    }
    const compiled = /\.js(\.map)?$/.exec(entry.name);
    if (!compiled) continue;
    const source = join(root, relative(dist, path)).replace(/\.js(\.map)?$/, '.ts');
    if (!existsSync(source)) rmSync(path);
  }
}

if (existsSync(dist)) prune(dist);
