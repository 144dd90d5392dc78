import { Readable } from 'node:stream';
import { run } from '../../packages/server/src/cli/index.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  lines: string[];
}

/**
 * Runs the CLI in-process with `argv`, optional standard input and environment (none by
 * default: `process.env` never reaches a command); captures its output.
 */
export async function cli(
  argv: string[],
  stdin = '',
  env: Record<string, string> = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([stdin]),
    env,
  });
  return { code, stdout, stderr, lines: stdout.split('\n').filter((l) => l !== '') };
}
