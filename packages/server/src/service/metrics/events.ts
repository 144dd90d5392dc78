/**
 * Recent lease, clock, store and service events: kept in a small ring for the dashboard and
 * written to the structured log, one line each. Messages never contain secrets (store
 * addresses are redacted where they are made).
 */
import type { NodeLogger } from 'idforge/coord';

export type EventLevel = 'info' | 'warn' | 'error';
export type EventKind = 'lease' | 'clock' | 'store' | 'service';

export interface ServiceEvent {
  readonly atMs: number;
  readonly level: EventLevel;
  readonly kind: EventKind;
  readonly message: string;
}

/** Where events are logged: a pino-style logger (fastify's). */
export interface EventSink {
  info(obj: object, message: string): void;
  warn(obj: object, message: string): void;
  error(obj: object, message: string): void;
}

/** The kind of an event from what a node logged. */
function kindOf(message: string): EventKind {
  if (/clock|mark|skew|rollback/i.test(message)) return 'clock';
  if (/lease|worker/i.test(message)) return 'lease';
  if (/store|unavailable|connect/i.test(message)) return 'store';
  return 'service';
}

/** A bounded list of recent events (newest last). Holds state; one per service. */
export class EventLog {
  readonly #items: ServiceEvent[] = [];
  readonly #limit: number;
  readonly #sink: EventSink;
  readonly #now: () => number;

  constructor(sink: EventSink, limit = 100, now: () => number = Date.now) {
    this.#sink = sink;
    this.#limit = limit;
    this.#now = now;
  }

  record(level: EventLevel, kind: EventKind, message: string): void {
    this.#items.push({ atMs: this.#now(), level, kind, message });
    if (this.#items.length > this.#limit) this.#items.shift();
    this.#sink[level]({ event: kind }, message);
  }

  /** The most recent events, oldest first. */
  recent(): readonly ServiceEvent[] {
    return [...this.#items];
  }

  /** A logger for a Snowflake node: each line becomes an event of the kind its text names. */
  nodeLogger(): NodeLogger {
    const at = (level: EventLevel) => (message: string) =>
      this.record(level, kindOf(message), message);
    return { info: at('info'), warn: at('warn'), error: at('error') };
  }
}
