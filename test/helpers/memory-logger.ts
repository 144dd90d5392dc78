// A Snowflake node's logger that keeps every line ("info …", "warn …", "error …") for the test
// to read, and prints nothing.
import type { NodeLogger } from '../../packages/idforge/src/coord/index.js';

export function memoryLogger(): NodeLogger & { lines: string[]; text: () => string } {
  const lines: string[] = [];
  return {
    lines,
    /** Every line so far, joined by newlines. */
    text: () => lines.join('\n'),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}
