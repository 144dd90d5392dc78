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

/** The terminal's "erase to the end of the line", escaped for a RegExp. */
export const CLEAR = '\\x1b\\[K';

/**
 * Runs the CLI in-process with its standard error a terminal (`isTTY`), as the progress bar
 * needs; standard output is discarded, standard input empty.
 */
export async function cliOnTerminal(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: () => true },
    stderr: {
      isTTY: true,
      write: (s: string) => {
        stderr += s;
        return true;
      },
    },
    stdin: Readable.from(['']),
  });
  return { code, stderr };
}

export interface InterruptedCliResult {
  code: number;
  stderr: string;
  /** Whether the command still had its signal listener registered when it returned. */
  listenerLeft: boolean;
}

/**
 * Runs the CLI in-process as a user pressing Ctrl-C: SIGINT goes to the listener the command
 * registered (`onSignal`) each time a write to standard error matches `when`. Standard output
 * is discarded; standard input is empty.
 */
export async function cliInterrupted(argv: string[], when: RegExp): Promise<InterruptedCliResult> {
  let stderr = '';
  let listener: ((signal: string) => void) | undefined;
  const code = await run(argv, {
    stdout: { write: () => true },
    stderr: {
      write: (s: string) => {
        stderr += s;
        if (when.test(s)) listener?.('SIGINT');
        return true;
      },
    },
    stdin: Readable.from(['']),
    onSignal: (l) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
  });
  return { code, stderr, listenerLeft: listener !== undefined };
}

/** `idforge backfill` of `table`'s public_id column on `url`, UUIDv7 in batches of `batch`. */
export const backfillArgs = (url: string, table: string, batch: number): string[] => [
  'backfill',
  '--store',
  url,
  '--table',
  table,
  '--column',
  'public_id',
  '--scheme',
  'uuidv7',
  '--batch',
  String(batch),
];
