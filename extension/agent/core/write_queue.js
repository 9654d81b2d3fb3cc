// A conversation's writes, one after the other, so its records stay in the
// order they happened: each write waits for the earlier ones; the view hears
// when writes are pending ({type: 'saving', saving}) and of each that failed
// ({type: 'write_error', what, error}). Pure.

/**
 * @param {(event: object) => void} emit
 * @returns {{write: (fn: () => Promise<any>, what: string) => Promise<void>, settled: () => Promise<void>}}
 *   write queues fn after the earlier writes ('record' or 'screenshot' says what it writes);
 *   settled resolves once every write queued so far has
 */
export function createWriteQueue(emit) {
  let writes = Promise.resolve();
  let pending = 0;
  function write(fn, what) {
    pending += 1;
    if (pending === 1) emit({ type: 'saving', saving: true });
    writes = writes.then(fn).catch((err) => emit({ type: 'write_error', what, error: String(err?.message || err) })).finally(() => {
      pending -= 1;
      if (pending === 0) emit({ type: 'saving', saving: false });
    });
    return writes;
  }
  return { write, settled: () => writes };
}
