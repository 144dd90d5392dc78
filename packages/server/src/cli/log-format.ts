/**
 * What `idforge serve` prints. JSON lines (pino) for a log collector; on a terminal, where a
 * person reads, one line at start that says where to go (address, store, dashboard, docs),
 * then only warnings, errors and the stop. Both drop Fastify's own "Server listening at" line:
 * the service logs `listening on URL` itself, and two near-identical lines read as a fault.
 */
import { redactUrl } from '@idforge/stores';
import type { LogFormat } from '../service/index.js';

/** Whether `--log-format` (auto: standard output is a terminal) asks for the human form. */
export function isPretty(format: LogFormat, isTTY: boolean | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY === true);
}

/** The service's messages a person reads in the human form beside warnings and errors. */
const SHOWN = /^(received |its parent process|start-up interrupted|stopped|the primary process)/;

/** One JSON log line in the human form: '' for what only a log collector needs. */
function human(line: string, store: string): string {
  let entry: { level?: number; msg?: unknown; event?: unknown };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return line;
  }
  const msg = String(entry.msg);
  const level = entry.level ?? 30;
  const listening = /^listening on (\S+)$/.exec(msg);
  if (entry.event === 'service' && listening !== null) {
    const url = listening[1];
    return (
      `idforge serve: listening on ${url} · store ${store} · dashboard ${url}/ · ` +
      `API docs ${url}/docs (Ctrl-C stops)\n`
    );
  }
  if (level >= 40) return `idforge serve: ${level >= 50 ? 'error' : 'warning'}: ${msg}\n`;
  return SHOWN.test(msg) ? `idforge serve: ${msg}\n` : '';
}

/** The writer of `serve`'s log lines (each a JSON line) in the format asked for. */
export function logWriter(
  pretty: boolean,
  store: string,
  write: (chunk: string) => unknown,
): (line: string) => void {
  const shown = redactUrl(store);
  return (line) => {
    if (line.includes('"msg":"Server listening at ')) return;
    const out = pretty ? human(line, shown) : line;
    if (out !== '') write(out);
  };
}
