#!/usr/bin/env node
import { run } from '../cli/main.js';

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  onSignal: (listener) => {
    const handler = (signal: NodeJS.Signals) => listener(signal);
    process.on('SIGTERM', handler).on('SIGINT', handler);
    return () => process.off('SIGTERM', handler).off('SIGINT', handler);
  },
});
