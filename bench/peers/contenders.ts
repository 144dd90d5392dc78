/**
 * The Snowflake contenders of section 2, idforge first, looked up by name in the worker
 * isolates that run them (the main thread builds the same lists for the labels).
 */
import {
  idforgeRollbackCases,
  idforgeSafetyContender,
  idforgeThroughputSubject,
} from './idforge-snowflake.js';
import {
  type RollbackCase,
  type SnowflakeContender,
  snowflakePeers,
  type ThroughputSubject,
} from './snowflake-peers.js';

/** 2a: every generator, idforge with its default clock. */
export function duplicateContenders(): SnowflakeContender[] {
  return [idforgeSafetyContender(), ...snowflakePeers];
}

/** 2b: idforge with each of its clocks, then every peer. */
export function rollbackCases(): RollbackCase[] {
  return [
    ...idforgeRollbackCases(),
    ...snowflakePeers.map((contender) => ({ contender, label: contender.name })),
  ];
}

/** 2c: idforge's generator on layout 'default' and the real clock. */
export function throughputSubject(): ThroughputSubject {
  return idforgeThroughputSubject();
}

/** The 2a contender named `name`; throws if there is none. */
export function duplicateContender(name: string): SnowflakeContender {
  const found = duplicateContenders().find((c) => c.name === name);
  if (found === undefined) throw new Error(`no Snowflake contender named ${name}`);
  return found;
}

/** The 2b case labelled `label`; throws if there is none. */
export function rollbackCase(label: string): RollbackCase {
  const found = rollbackCases().find((c) => c.label === label);
  if (found === undefined) throw new Error(`no rollback case labelled ${label}`);
  return found;
}
