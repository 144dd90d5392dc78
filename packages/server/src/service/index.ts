/**
 * @idforge/server: the ID service teams deploy (docs/service.md). `startService(config)` runs
 * it; `resolveConfig` validates settings from a file, the environment and flags; `openService`
 * + `buildApp` give the Fastify app without listening (tests use `app.inject()`). This file
 * re-exports only, by name.
 */

export { PROCESS_INDEX_ENV, type PrimaryOptions, runPrimary } from './cluster/cluster-primary.js';
export { type ClusterRole, clusterRole } from './cluster/cluster-role.js';
export type { ClusterView, Gathered, GatherKind, ProcessAnswer } from './cluster/cluster-view.js';
export {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigSources,
  envName,
  flagName,
  resolveConfig,
  type ServiceConfig,
} from './config/config.js';
export {
  ConfigError,
  type LogFormat,
  type LogLevel,
  TOKEN_KEYS,
  type TokenConfig,
} from './config/config-values.js';
export type { Access, ServiceDeps, ServiceIdentity } from './deps.js';
export { buildApp } from './http/app.js';
export { type Principal, TokenAuth } from './http/auth.js';
export {
  CATEGORY_STATUS,
  CODE_STATUS,
  type ErrorBody,
  SERVICE_CATEGORY,
  type ServiceCategory,
  ServiceCode,
  type ServiceCodeValue,
} from './http/errors.js';
export { EventLog, type ServiceEvent } from './metrics/events.js';
export { ServiceMetrics } from './metrics/metrics.js';
export {
  type OpenedService,
  openService,
  type RunningService,
  type StartOptions,
  startService,
} from './server.js';
export type { StopReport } from './stop.js';
