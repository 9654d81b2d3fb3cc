// Where the approval window opens. A page can read its own window's position
// and size, so a window centred over the chat would open where the page can
// tell someone to click. Instead it opens at a random place over the chat's
// window, never near the centred spot: at least a quarter of its width to
// the left or the right of it, and anywhere in the height that fits. Pure:
// the random source is passed in (crypto in the worker).

/** How far from the centred position the window's left edge stays, as a share of its width. */
export const OFF_CENTRE = 0.25;

/** A random number in [0, 1) from crypto.getRandomValues. */
export function cryptoRandom() {
  const a = new Uint32Array(1);
  globalThis.crypto.getRandomValues(a);
  return a[0] / 2 ** 32;
}

/**
 * Where the approval window may open, best first: a random place over the
 * chat's window off the centred spot, then the same distance on the other
 * side, then each side at the least distance. The browser refuses a window
 * mostly off the screen (whose size the worker cannot read), so the worker
 * tries them in turn.
 * @param {{left: number, top: number, width: number, height: number}} parent the chat's window
 * @param {{width: number, height: number}} size the approval window's
 * @param {{random?: () => number, cascade?: number}} [opts] cascade: px added when several wait
 * @returns {{left: number, top: number}[]}
 */
export function approvalPlacements(parent, size, { random = cryptoRandom, cascade = 0 } = {}) {
  const centredLeft = parent.left + (parent.width - size.width) / 2;
  const gap = Math.ceil(size.width * OFF_CENTRE);
  // Room on each side of the centred spot, inside the parent; at least the gap, so the window may overhang.
  const roomLeft = Math.max(gap, centredLeft - parent.left);
  const roomRight = Math.max(gap, parent.left + parent.width - size.width - centredLeft);
  const toLeft = random() < 0.5;
  const offset = gap + random() * Math.max(0, (toLeft ? roomLeft : roomRight) - gap);
  const top = parent.top + random() * Math.max(0, parent.height - size.height);
  const at = (dx) => ({ left: Math.max(0, Math.round(centredLeft + dx + cascade)), top: Math.max(0, Math.round(top + cascade)) });
  const side = toLeft ? -1 : 1;
  const all = [at(side * offset), at(-side * offset), at(side * gap), at(-side * gap)];
  return all.filter((p, i) => all.findIndex((q) => q.left === p.left && q.top === p.top) === i);
}

/** The first of approvalPlacements. */
export function approvalPlacement(parent, size, opts) {
  return approvalPlacements(parent, size, opts)[0];
}
