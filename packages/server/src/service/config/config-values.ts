/**
 * The validators of the service's settings: each takes a value as a file, a variable or a
 * flag gives it and returns it typed, or throws {@link ConfigError} naming where it came from
 * and what was expected. The table of keys is in config.ts.
 */

import { type StoreRoleName, servesRole, storeScheme, wrongSchemeMessage } from '@idforge/stores';
import { PRESET_NAMES } from 'idforge';
import { nearest } from '../http/errors.js';

/** One bearer token and what it may do. Tokens come from the config file or the environment. */
export interface TokenConfig {
  /** A name for logs and metrics (never the token itself). */
  readonly name: string;
  readonly token: string;
  /** Schemes of /v1/ids this token may issue; ['*'] for all. Default ['*']. */
  readonly schemes: readonly string[];
  /** Sequence tags this token may draw from; ['*'] for all. Default ['*']. */
  readonly tags: readonly string[];
  /** May call the admin routes (create tags, change steps, list leases). Default false. */
  readonly admin: boolean;
  /**
   * What the token may do beside admin: `ids` (IDs and sequences), `lease` (worker-ID leases
   * over /v1/worker-leases, for in-process nodes). Default ['ids'].
   */
  readonly scopes: readonly TokenScope[];
  /**
   * With scope `lease`: the worker IDs it may lease, [min, max] (an acquire asking outside is
   * a 403); null (or absent) for any. Default null.
   */
  readonly workers?: readonly [number, number] | null;
  /** With scope `lease`: how many live leases it may hold at once; null (or absent): no limit. */
  readonly maxLeases?: number | null;
}

/** The scopes of a token (docs/service.md, "Tokens"). */
export const TOKEN_SCOPES = ['ids', 'lease'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** How much the service logs. */
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** A bad or unknown configuration key: `key` names it, the message says the fix. */
export class ConfigError extends RangeError {
  readonly key: string;
  constructor(key: string, message: string) {
    super(message);
    this.name = 'ConfigError';
    this.key = key;
  }
}

export type Parse<T> = (value: unknown, where: string) => T;

export interface KeySpec<T> {
  readonly default: T;
  readonly parse: Parse<T>;
  readonly help: string;
}

export const fail = (where: string, expected: string, value: unknown): never => {
  throw new ConfigError(where, `${where}: expected ${expected}, got ${show(value)}`);
};

export function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return JSON.stringify(value) ?? String(value);
}

export function int(min: number, max: number): Parse<number> {
  return (value, where) => {
    const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) {
      return fail(where, `an integer in [${min}, ${max}]`, value);
    }
    return n;
  };
}

export const text: Parse<string> = (value, where) =>
  typeof value === 'string' && value.trim() !== ''
    ? value.trim()
    : fail(where, 'a non-empty string', value);

export const bool: Parse<boolean> = (value, where) => {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return fail(where, 'true or false', value);
};

/**
 * A store URL for one role (`--store`, `--sequences`, `--marks`): the backends that serve it
 * are the registry's (@idforge/stores); the message of a wrong scheme says which schemes the
 * role accepts and, for a scheme of another role, which flag takes it (`wrongSchemeMessage`).
 */
export function url(role: StoreRoleName): Parse<string> {
  return (value, where) => {
    const u = text(value, where);
    let scheme: string;
    try {
      scheme = storeScheme(u);
    } catch (error) {
      throw new ConfigError(where, `${where}: ${(error as Error).message}`);
    }
    if (!servesRole(role, scheme)) {
      throw new ConfigError(where, `${where}: ${wrongSchemeMessage(role, scheme)}`);
    }
    return u;
  };
}

export const layoutName: Parse<string> = (value, where) => {
  const name = text(value, where);
  if (!(PRESET_NAMES as readonly string[]).includes(name)) {
    const near = nearest(name, PRESET_NAMES);
    const guess = near === undefined ? '' : ` (did you mean ${near}?)`;
    throw new ConfigError(
      where,
      `${where}: unknown layout ${show(name)}${guess}; one of ${PRESET_NAMES.join(', ')} (idforge layouts)`,
    );
  }
  return name;
};

export const layoutList: Parse<readonly string[]> = (value, where) => {
  const items = typeof value === 'string' ? value.split(',').filter((s) => s.trim() !== '') : value;
  if (!Array.isArray(items)) return fail(where, 'a list of layout names', value);
  return items.map((v, i) => layoutName(v, `${where}[${i}]`));
};

export const workerRange: Parse<readonly [number, number] | null> = (value, where) => {
  if (value === null) return null;
  const m = typeof value === 'string' ? /^(\d+)(?:-(\d+))?$/.exec(value.trim()) : null;
  const pair = m ? [Number(m[1]), Number(m[2] ?? m[1])] : value;
  if (
    !Array.isArray(pair) ||
    pair.length !== 2 ||
    !pair.every((n) => Number.isSafeInteger(n) && n >= 0) ||
    pair[0] > pair[1]
  ) {
    return fail(where, 'a worker ID or a range MIN-MAX (or [min, max] in a file)', value);
  }
  return [pair[0] as number, pair[1] as number];
};

export const fieldValues: Parse<Readonly<Record<string, number>>> = (value, where) => {
  let entries: [string, unknown][];
  if (typeof value === 'string') {
    entries = value
      .split(',')
      .filter((p) => p.trim() !== '')
      .map((p) => {
        const [k, v] = p.split('=');
        return [(k ?? '').trim(), v?.trim()];
      });
  } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    entries = Object.entries(value);
  } else return fail(where, 'NAME=V,NAME=V (or an object in a file)', value);
  const out: Record<string, number> = {};
  for (const [k, v] of entries) {
    if (!/^[a-z][a-z0-9_]*$/i.test(k)) return fail(where, 'NAME=V pairs with field names', value);
    out[k] = int(0, 2 ** 31 - 1)(v, `${where} ${k}`);
  }
  return out;
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const logLevel: Parse<LogLevel> = (value, where) =>
  (LOG_LEVELS as readonly unknown[]).includes(value)
    ? (value as LogLevel)
    : fail(where, `one of ${LOG_LEVELS.join(', ')}`, value);

/** `--log-format`: JSON lines, one human line at start, or pretty on a terminal only. */
export type LogFormat = 'auto' | 'json' | 'pretty';
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export const logFormat: Parse<LogFormat> = (value, where) =>
  (LOG_FORMATS as readonly unknown[]).includes(value)
    ? (value as LogFormat)
    : fail(where, `one of ${LOG_FORMATS.join(', ')}`, value);

/** The keys of a token in `tokens` (serve --help lists them from here). */
export const TOKEN_KEYS = [
  'name',
  'token',
  'schemes',
  'tags',
  'admin',
  'scopes',
  'workers',
  'maxLeases',
];

function scopes(value: unknown, where: string): readonly TokenScope[] {
  if (value === undefined) return ['ids'];
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((s) => (TOKEN_SCOPES as readonly unknown[]).includes(s));
  return ok ? (value as TokenScope[]) : fail(where, `a list of ${TOKEN_SCOPES.join(', ')}`, value);
}

function list(value: unknown, where: string): readonly string[] {
  if (value === undefined) return ['*'];
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && s !== '')) {
    return fail(where, 'a list of names, or ["*"]', value);
  }
  return value as string[];
}

export const tokens: Parse<readonly TokenConfig[]> = (value, where) => {
  if (!Array.isArray(value)) return fail(where, `a list of {${TOKEN_KEYS.join(', ')}}`, value);
  const names = new Set<string>();
  return value.map((t, i) => {
    const at = `${where}[${i}]`;
    if (typeof t !== 'object' || t === null) return fail(at, 'an object {name, token, ...}', t);
    for (const k of Object.keys(t)) {
      if (!TOKEN_KEYS.includes(k)) {
        throw new ConfigError(
          `${at}.${k}`,
          `${at}.${k}: unknown key; a token has ${TOKEN_KEYS.join(', ')}`,
        );
      }
    }
    const o = t as Record<string, unknown>;
    const name = text(o.name, `${at}.name`);
    if (names.has(name))
      throw new ConfigError(
        `${at}.name`,
        `${at}.name: ${show(name)} is used twice; names must differ`,
      );
    names.add(name);
    const token = text(o.token, `${at}.token`);
    if (token.length < 16) {
      throw new ConfigError(
        `${at}.token`,
        `${at}.token: too short (${token.length} characters); use at least 16 random characters, e.g. from \`openssl rand -hex 24\``,
      );
    }
    return {
      name,
      token,
      schemes: list(o.schemes, `${at}.schemes`),
      tags: list(o.tags, `${at}.tags`),
      admin: o.admin === undefined ? false : bool(o.admin, `${at}.admin`),
      scopes: scopes(o.scopes, `${at}.scopes`),
      workers: workerRange(o.workers ?? null, `${at}.workers`),
      maxLeases: nullable(int(1, 1_000_000))(o.maxLeases ?? null, `${at}.maxLeases`),
    };
  });
};

export const nullable =
  <T>(p: Parse<T>): Parse<T | null> =>
  (value, where) =>
    value === null ? null : p(value, where);
