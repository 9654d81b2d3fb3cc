// Normalised model coordinates to CSS pixels of the viewport.
//
// UI-Venus models point with integers 0..999 on both axes of the screenshot
// they were sent: x_css = x / 999 * viewport width. A per-model coordinate
// mode ('absolute' pixels of the sent image, as UI-TARS emits) is the
// extension point. Pure module.

/** Largest normalised coordinate on either axis: models point with integers 0..COORD_MAX. */
export const COORD_MAX = 999;

/**
 * @param {[number, number]} point model point
 * @param {{width:number, height:number}} viewport CSS viewport from Page.getLayoutMetrics
 * @param {'normalized'|'absolute'} mode
 * @returns {{x:number, y:number}} CSS pixels, clamped inside the viewport
 */
export function toCss(point, viewport, mode = 'normalized') {
  const [px, py] = point;
  let x;
  let y;
  if (mode === 'absolute') {
    x = px;
    y = py;
  } else {
    x = (px / COORD_MAX) * viewport.width;
    y = (py / COORD_MAX) * viewport.height;
  }
  // Point 999 maps to the far edge; keep it on the last pixel row/column.
  x = Math.min(Math.max(x, 0), Math.max(viewport.width - 1, 0));
  y = Math.min(Math.max(y, 0), Math.max(viewport.height - 1, 0));
  return { x: Math.round(x * 100) / 100, y: Math.round(y * 100) / 100 };
}

/** The inverse of toCss, for tests and for the scripted model: CSS pixels to 0..999. */
export function toNormalized(x, y, viewport) {
  return [
    Math.round((x / viewport.width) * COORD_MAX),
    Math.round((y / viewport.height) * COORD_MAX),
  ];
}
