/**
 * `promise`, or the signal's reason as soon as it aborts. The promise itself
 * goes on: a shared piece of work (a token refresh several jobs wait for)
 * must not stop because one waiter left.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  // The promise that loses the race still settles later: its failure is nobody's news, and never unhandled.
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
