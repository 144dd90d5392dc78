/**
 * @idforge/server: the ID service teams deploy (docs/service.md). `startService(config)` runs
 * it; `resolveConfig` validates settings from a file, the environment and flags; `openService`
 * + `buildApp` give the Fastify app without listening (tests use `app.inject()`). This file
 * re-exports only, by name.
 */
export { buildApp } from './app.js';
export { type Principal, TokenAuth } from './auth.js';
export { PROCESS_INDEX_ENV, type PrimaryOptions, runPrimary } from './cluster-primary.js';
export { type ClusterRole, clusterRole } from './cluster-role.js';
export type { ClusterView, Gathered, GatherKind, ProcessAnswer } from './cluster-view.js';
export {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigSources,
  envName,
  flagName,
  resolveConfig,
  type ServiceConfig,
} from './config.js';
export {
  ConfigError,
  type LogFormat,
  type LogLevel,
  TOKEN_KEYS,
  type TokenConfig,
} from './config-values.js';
export type { Access, ServiceDeps, ServiceIdentity } from './deps.js';
export {
  CATEGORY_STATUS,
  CODE_STATUS,
  type ErrorBody,
  SERVICE_CATEGORY,
  type ServiceCategory,
  ServiceCode,
  type ServiceCodeValue,
} from './errors.js';
export { EventLog, type ServiceEvent } from './events.js';
export { ServiceMetrics } from './metrics.js';
export {
  type OpenedService,
  openService,
  type RunningService,
  type StartOptions,
  startService,
} from './server.js';
export type { StopReport } from './stop.js';
