/**
 * Entry of the worker threads started by isolate.ts: runs the task in `workerData` and posts
 * its result. Never imported by the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { duplicateContender, rollbackCase, throughputSubject } from './contenders.js';
import type { SafetyResult, SafetyTask } from './isolate.js';
import { measureDuplicates, measureRollback, measureThroughput, warmUp } from './safety.js';

/** Each task warms up on one generator instance, then measures a fresh one. */
function run(task: SafetyTask): SafetyResult {
  switch (task.kind) {
    case 'duplicates': {
      const contender = duplicateContender(task.name);
      warmUp(contender.create(), task.warmUpMs);
      return measureDuplicates(contender.create(), task.ms);
    }
    case 'rollback': {
      const { contender } = rollbackCase(task.label);
      warmUp(contender.create(), task.warmUpMs);
      return measureRollback(contender.create(), task.beforeMs, task.stepMs, task.afterMs);
    }
    case 'throughput': {
      measureThroughput(throughputSubject().source, task.warmUpMs);
      const subject = throughputSubject();
      const result = measureThroughput(subject.source, task.ms);
      return {
        ...result,
        name: subject.name,
        capPerMs: subject.capPerMs,
        exhaustionWaits: subject.exhaustionWaits(),
      };
    }
  }
}

if (parentPort === null) throw new Error('safety-worker.ts runs only as a worker thread');
parentPort.postMessage(run(workerData as SafetyTask));
