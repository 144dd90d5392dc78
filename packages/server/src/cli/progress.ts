/**
 * Progress of a long command (`bench db`, `backfill`) on stderr: on a terminal, a bar redrawn
 * in place at most 10 times a second; otherwise (a log, a pipe, CI) one line at each new tenth,
 * so a log stays short. Either way a finished phase is a line of its own.
 */
import type { CliIo } from 'idforge/cli';

/** `n` rounded, with thousands separators (`1,234,567`). */
export const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** `42 s`, `3 min 5 s`. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** `N rows/s, ETA D` for `done` of `total` rows after `elapsedMs`. */
export function rateText(done: number, total: number, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? (total - done) / rate : 0;
  return `${int(rate)} rows/s, ETA ${duration(eta)}`;
}

const BAR_WIDTH = 24;
const REDRAW_MS = 100;

export class ProgressPrinter {
  readonly #io: CliIo;
  readonly #tty: boolean;
  #lastDraw = 0;
  #lastTenth = 0;
  #drawn = false;

  constructor(io: CliIo) {
    this.#io = io;
    this.#tty = io.stderr.isTTY === true;
  }

  /** A finished line (a phase done); the count of tenths starts again after it. */
  line(text: string): void {
    this.#lastTenth = 0;
    this.#write(text, true);
  }

  /**
   * `done` of `total`, described by `text`. Off a terminal a line is printed at each tenth
   * passed; `always` prints every update (a later pass, which goes over rows already counted).
   */
  step(done: number, total: number, text: string, always = false): void {
    const part = Math.min(1, done / Math.max(1, total));
    if (this.#tty) {
      const now = Date.now();
      if (now - this.#lastDraw < REDRAW_MS && done < total) return;
      this.#lastDraw = now;
      const full = Math.round(part * BAR_WIDTH);
      this.#write(`[${'#'.repeat(full)}${'.'.repeat(BAR_WIDTH - full)}] ${text}`, false);
      return;
    }
    const tenth = Math.floor(part * 10);
    if (tenth <= this.#lastTenth && !always) return;
    this.#lastTenth = tenth;
    this.#write(text, true);
  }

  /** Ends a bar drawn in place (the next output starts on a line of its own). */
  end(): void {
    if (this.#drawn) this.#io.stderr.write('\n');
    this.#drawn = false;
  }

  #write(text: string, line: boolean): void {
    if (this.#tty) {
      this.#io.stderr.write(`\r${text}\x1b[K${line ? '\n' : ''}`);
      this.#drawn = !line;
    } else {
      this.#io.stderr.write(`${text}\n`);
    }
  }
}
