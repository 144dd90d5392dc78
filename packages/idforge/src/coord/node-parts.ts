/**
 * The parts of one Snowflake node, wired together (snowflake-node.ts lists their jobs). Who
 * calls whom:
 *
 *   generator ──admit──▶ fence ──▶ lease (keeper's bounds, duplicate), switcher, marks
 *   keeper ──loss──▶ lease ──retire, activate──▶ activation ──▶ marks, lease, switcher
 *   fence / next() ──rollback──▶ switcher ──retire, activate──▶ activation
 *
 * Every part reads the shared status (closed, the last error); the lease and the switcher
 * reach the generator only through the activation part.
 */
import type { Clock } from '../core/index.js';
import { defaultClock } from '../core/internal.js';
import { NodeActivation } from './node-activation.js';
import { Fence } from './node-fence.js';
import { type LeaseHost, NodeLease } from './node-lease.js';
import { NodeMarks } from './node-marks.js';
import type { NodeSettings } from './node-options.js';
import { NodeStatus } from './node-status.js';
import { type SwitchHost, WorkerSwitcher } from './node-switch.js';
import type { Lease } from './ports.js';

export interface NodeParts {
  readonly settings: NodeSettings;
  readonly clock: Clock;
  readonly status: NodeStatus;
  readonly marks: NodeMarks;
  readonly lease: NodeLease;
  readonly switcher: WorkerSwitcher;
  readonly fence: Fence;
  readonly activation: NodeActivation;
}

/** Builds the parts of a node with `settings`; nothing runs until the activation's start. */
export function nodeParts(settings: NodeSettings): NodeParts {
  const clock = settings.clock ?? defaultClock();
  const status = new NodeStatus();
  const marks = new NodeMarks(settings.layout);
  // The activation part is built last, as it works with all the others; the lease and the
  // switcher call it only once the node has started.
  const host: LeaseHost & SwitchHost = {
    lastIssuedMs: () => activation.lastIssuedMs(),
    retire: () => activation.retire(),
    activate: (lease: Lease) => activation.activate(lease),
  };
  const lease = new NodeLease(settings, clock, status, marks, host);
  const switcher = new WorkerSwitcher(settings, clock, status, lease, host);
  const fence = new Fence(settings, lease, marks, switcher);
  const activation = new NodeActivation(settings, clock, {
    status,
    lease,
    marks,
    switcher,
    admit: (tickStartMs) => fence.admit(tickStartMs),
  });
  return { settings, clock, status, marks, lease, switcher, fence, activation };
}
