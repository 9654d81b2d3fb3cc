// Where the approval window opens, and where its buttons go in it. A page
// can read its own window's position and size, so a window centred over the
// chat would open where the page can tell someone to click. Instead it opens
// at a random place over the chat's window, never near the centred spot: at
// least a quarter of its width to the left or the right of it, and anywhere
// in the height that fits; and inside it, its buttons are scattered at
// random over its answer area (scatterButtons). Pure: the random source is
// passed in (crypto in the worker and the window).

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

/** Room kept between two buttons and from the pad's edges (CSS px). */
export const SCATTER_GAP = 12;

/**
 * Where the approval window's buttons go inside its answer area (the pad):
 * each at a random place, none within SCATTER_GAP of another or of the
 * pad's edge, and none overlapping the rectangles to avoid. So their order
 * and places differ from one window to the next over more than their own
 * size, and a click a page asks for at a spot it chose lands on any of them,
 * or none, by chance. After many failed draws the buttons are stacked in a
 * random order (a pad too small to scatter them).
 * @param {{width: number, height: number}} pad
 * @param {Array<{id: string, width: number, height: number}>} boxes
 * @param {{random?: () => number, avoid?: Array<{left:number, top:number, right:number, bottom:number}>}} [opts]
 * @returns {Object<string, {left: number, top: number}>} by id, in pad coordinates
 */
export function scatterButtons(pad, boxes, { random = cryptoRandom, avoid = [] } = {}) {
  const g = SCATTER_GAP;
  const clear = (r, placed) => placed.every((p) => rectsApart(r, p, g)) && avoid.every((a) => rectsApart(r, a, 0));
  for (let attempt = 0; attempt < 50; attempt++) {
    const placed = [];
    const out = {};
    let ok = true;
    for (const b of shuffled(boxes, random)) {
      let found = null;
      for (let i = 0; i < 60 && !found; i++) {
        const left = g + random() * Math.max(0, pad.width - b.width - 2 * g);
        const top = g + random() * Math.max(0, pad.height - b.height - 2 * g);
        const r = { left, top, right: left + b.width, bottom: top + b.height };
        if (clear(r, placed)) found = r;
      }
      if (!found) {
        ok = false;
        break;
      }
      placed.push(found);
      out[b.id] = { left: Math.round(found.left), top: Math.round(found.top) };
    }
    if (ok) return out;
  }
  const out = {};
  let top = g;
  for (const b of shuffled(boxes, random)) {
    out[b.id] = { left: Math.round(g + random() * Math.max(0, pad.width - b.width - 2 * g)), top };
    top += b.height + g;
  }
  return out;
}

/** Whether two rectangles are at least gap px apart (on either axis). */
export function rectsApart(a, b, gap = 0) {
  return a.right + gap <= b.left || b.right + gap <= a.left || a.bottom + gap <= b.top || b.bottom + gap <= a.top;
}

/** A rectangle grown by dx on the left and right and dy above and below. */
export function grown(r, dx, dy) {
  return { left: r.left - dx, top: r.top - dy, right: r.right + dx, bottom: r.bottom + dy };
}

/** A copy of list in a random order (Fisher-Yates). */
export function shuffled(list, random = cryptoRandom) {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
