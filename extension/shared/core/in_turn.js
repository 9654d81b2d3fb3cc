// Work that must not interleave: a read-modify-write of one storage key, or
// one origin's replies judged in the order they came. Pure.

/**
 * A queue per key: run(key, fn) starts fn after every earlier fn of the same
 * key has settled (a failure does not hold up the next) and returns fn's
 * promise. Keys are independent; a key's queue is dropped once it is empty.
 */
export function inTurn() {
  const tails = new Map(); // key -> the tail of its chain
  return function run(key, fn) {
    const result = (tails.get(key) || Promise.resolve()).then(fn);
    const tail = result.catch(() => {});
    tails.set(key, tail);
    tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
}
