// What an action holds on a tab while it runs (mouse buttons pressed and
// where, keys down), folded from the CDP input commands it sends, and the
// commands that let it all go. The tab engine's held-input record
// (shared/tab_held_input.js) keeps it where a restarted worker finds it.
// Pure: no chrome.*.

/**
 * What an action holds on a tab, from the CDP input commands it sends: the
 * mouse buttons pressed (and where) and the keys down. `track` folds one
 * command into it; `releases` lists the commands that let it all go.
 */
export function track(held, method, params = {}) {
  const h = { buttons: { ...(held?.buttons || {}) }, keys: { ...(held?.keys || {}) } };
  if (method === 'Input.dispatchMouseEvent') {
    const button = params.button || 'left';
    if (params.type === 'mousePressed') h.buttons[button] = { x: params.x, y: params.y };
    if (params.type === 'mouseReleased') delete h.buttons[button];
  }
  if (method === 'Input.dispatchKeyEvent') {
    const id = params.code || params.key;
    if (id && (params.type === 'keyDown' || params.type === 'rawKeyDown')) {
      h.keys[id] = { key: params.key, code: params.code, windowsVirtualKeyCode: params.windowsVirtualKeyCode, modifiers: params.modifiers };
    }
    if (id && params.type === 'keyUp') delete h.keys[id];
  }
  return h;
}

/** Whether a held record holds anything. */
export function holdsAny(held) {
  return Boolean(held && (Object.keys(held.buttons || {}).length || Object.keys(held.keys || {}).length));
}

/** The CDP commands that release what a record holds: keys first, then buttons, each where it was pressed. */
export function releases(held) {
  const out = [];
  for (const k of Object.values(held?.keys || {})) {
    out.push(['Input.dispatchKeyEvent', { type: 'keyUp', ...Object.fromEntries(Object.entries(k).filter(([, v]) => v !== undefined)) }]);
  }
  for (const [button, at] of Object.entries(held?.buttons || {})) {
    out.push(['Input.dispatchMouseEvent', { type: 'mouseReleased', button, x: at.x, y: at.y, clickCount: 1 }]);
  }
  return out;
}
