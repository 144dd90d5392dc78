/**
 * The waits of the coordination layer. Awaited by a caller, so not unref'd (only the
 * background loop's timers are). `signal`: the wait ends early when it aborts, and the caller
 * then looks at the signal (a SIGTERM during a node's start must not wait out a mark or a
 * full range first).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
