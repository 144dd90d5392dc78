#!/usr/bin/env node
// Copies the service's static files (the dashboard page, its script and style sheet) from
// src/ to dist/, next to the compiled code that serves them: tsc compiles only .ts files.
// Run by `npm run build`; the service reads them at runtime, no bundler involved.
import { cpSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, 'src/service/dashboard');
const to = join(root, 'dist/service/dashboard');
if (!existsSync(from)) {
  console.error(`copy-assets: ${from} is missing`);
  process.exit(1);
}
cpSync(from, to, { recursive: true, filter: (path) => !path.endsWith('.ts') });
