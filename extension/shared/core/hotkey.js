// Cross-platform hotkey names to CDP key events.
//
// Models write chords with loose names ('ctrl', 'cmd', 'Enter', 'ArrowUp',
// 'f5'); Input.dispatchKeyEvent needs key, code, windowsVirtualKeyCode and a
// modifier bit mask. `cmd`/`command` means the platform's shortcut modifier
// (Meta on macOS, Control elsewhere), so one prompt works on every OS.
// Pure module, no chrome.* calls.

/** CDP modifier bits. */
export const MODIFIER_BITS = Object.freeze({ Alt: 1, Control: 2, Meta: 4, Shift: 8 });

const MODIFIERS = {
  ctrl: 'Control', control: 'Control', ctl: 'Control',
  alt: 'Alt', option: 'Alt', opt: 'Alt',
  shift: 'Shift',
  meta: 'Meta', win: 'Meta', windows: 'Meta', super: 'Meta',
};

const MODIFIER_KEYS = {
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17 },
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18 },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91 },
};

const NAMED = {
  enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  return: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  esc: { key: 'Escape', code: 'Escape', keyCode: 27 },
  escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  spacebar: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  del: { key: 'Delete', code: 'Delete', keyCode: 46 },
  insert: { key: 'Insert', code: 'Insert', keyCode: 45 },
  home: { key: 'Home', code: 'Home', keyCode: 36 },
  end: { key: 'End', code: 'End', keyCode: 35 },
  pageup: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  pagedown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  up: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  down: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  left: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  right: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  arrowup: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  arrowdown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  arrowleft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  arrowright: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
};

const PUNCT = {
  '-': ['Minus', 189], '=': ['Equal', 187], '[': ['BracketLeft', 219], ']': ['BracketRight', 221],
  ';': ['Semicolon', 186], "'": ['Quote', 222], ',': ['Comma', 188], '.': ['Period', 190],
  '/': ['Slash', 191], '\\': ['Backslash', 220], '`': ['Backquote', 192],
};

/**
 * Describes one key name.
 * @returns {{modifier?:string, key:string, code:string, keyCode:number, text?:string} | {error:string}}
 */
export function describeKey(name, platform = 'linux') {
  if (typeof name !== 'string' || name.trim() === '') return { error: 'empty key name' };
  const raw = name.trim();
  const n = raw.toLowerCase().replace(/[\s_]/g, '');
  if (n === 'cmd' || n === 'command' || n === 'mod') {
    const m = platform === 'mac' ? 'Meta' : 'Control';
    return { modifier: m, ...MODIFIER_KEYS[m] };
  }
  if (Object.hasOwn(MODIFIERS, n)) return { modifier: MODIFIERS[n], ...MODIFIER_KEYS[MODIFIERS[n]] };
  if (Object.hasOwn(NAMED, n)) return { ...NAMED[n] };
  const f = /^f([1-9]|1[0-2])$/.exec(n);
  if (f) return { key: 'F' + f[1], code: 'F' + f[1], keyCode: 111 + Number(f[1]) };
  if (/^[a-z]$/.test(n)) return { key: raw.length === 1 ? raw : n, code: 'Key' + n.toUpperCase(), keyCode: n.toUpperCase().charCodeAt(0), text: raw.length === 1 ? raw : n };
  if (/^[0-9]$/.test(n)) return { key: n, code: 'Digit' + n, keyCode: n.charCodeAt(0), text: n };
  if (raw.length === 1 && Object.hasOwn(PUNCT, raw)) return { key: raw, code: PUNCT[raw][0], keyCode: PUNCT[raw][1], text: raw };
  return { error: `unknown key ${JSON.stringify(name)}` };
}

const MAC_COMMANDS = {
  [`${MODIFIER_BITS.Meta}:a`]: 'selectAll',
  [`${MODIFIER_BITS.Meta}:c`]: 'copy',
  [`${MODIFIER_BITS.Meta}:x`]: 'cut',
  [`${MODIFIER_BITS.Meta}:v`]: 'paste',
  [`${MODIFIER_BITS.Meta}:z`]: 'undo',
  [`${MODIFIER_BITS.Meta | MODIFIER_BITS.Shift}:z`]: 'redo',
};

/**
 * Turns a chord (1..3 names) into the CDP events that press and release it.
 * Modifiers go down first and up last; the main key carries the modifier mask.
 * With modifiers other than Shift, no text is typed.
 * @returns {{events: object[]} | {error: string}}
 */
export function chordEvents(keys, platform = 'linux') {
  if (!Array.isArray(keys) || keys.length < 1 || keys.length > 3) return { error: 'a hotkey needs 1 to 3 key names' };
  const described = [];
  for (const k of keys) {
    const d = describeKey(k, platform);
    if (d.error) return d;
    described.push(d);
  }
  const mods = described.filter((d) => d.modifier);
  const mains = described.filter((d) => !d.modifier);
  if (mains.length > 1) return { error: `a hotkey has at most one non-modifier key, got ${mains.map((m) => m.key).join(', ')}` };
  const events = [];
  let mask = 0;
  for (const m of mods) {
    mask |= MODIFIER_BITS[m.modifier];
    events.push(keyEvent('rawKeyDown', m, mask));
  }
  const main = mains[0];
  if (main) {
    const typing = (mask & ~MODIFIER_BITS.Shift) === 0 && main.text !== undefined;
    const down = keyEvent(typing ? 'keyDown' : 'rawKeyDown', main, mask);
    if (typing) {
      const text = mask & MODIFIER_BITS.Shift && main.text.length === 1 ? main.text.toUpperCase() : main.text;
      down.text = text;
      down.unmodifiedText = main.text;
    }
    // On macOS, Chromium runs editing shortcuts from the key event's commands, not from the keys.
    const command = platform === 'mac' ? MAC_COMMANDS[`${mask}:${main.key.toLowerCase()}`] : undefined;
    if (command) down.commands = [command];
    events.push(down);
    events.push(keyEvent('keyUp', main, mask));
  }
  for (const m of [...mods].reverse()) {
    events.push(keyEvent('keyUp', m, mask));
    mask &= ~MODIFIER_BITS[m.modifier];
  }
  return { events };
}

function keyEvent(type, d, modifiers) {
  return { type, key: d.key, code: d.code, windowsVirtualKeyCode: d.keyCode, nativeVirtualKeyCode: d.keyCode, modifiers };
}

/** Maps navigator.userAgentData.platform / navigator.platform to 'mac' | 'windows' | 'linux'. */
export function platformOf(platformString) {
  const s = String(platformString || '').toLowerCase();
  if (s.includes('mac')) return 'mac';
  if (s.includes('win')) return 'windows';
  return 'linux';
}
