// Strict parser for the replies of UI-Venus style GUI models.
//
// A reply is `<think>…</think><action>Name(args)</action>`. We are lenient
// where it is harmless (no <think>; an `Action: Name(...)` line instead of the
// tags) and strict where it matters: exactly one action, a known name, typed
// and range-checked arguments. Nothing here evaluates model text as code: the
// argument list is tokenised by hand. Pure module, no chrome.* calls.

import { COORD_MAX } from '../../shared/core/coords.js';

/** Thrown-free result of parseReply: either {ok:true, think, action} or {ok:false, error}. */

const DIRECTIONS = ['up', 'down', 'left', 'right'];
/** Where a task acts: the browser tab or the computer's desktop (desktop_surface.js). */
export const SURFACES = Object.freeze(['tab', 'desktop']);

// Parameter specs: type is one of point, string, number, int, direction, keys, url, surface.
// The first name is canonical; aliases are the other spellings models use.
const P = (name, type, opts = {}) => ({ name, type, required: opts.required !== false, aliases: opts.aliases || [], min: opts.min, max: opts.max });
const POINT_ALIASES = ['box', 'start_box', 'coordinate', 'position', 'point_2d'];

/**
 * The action table from the facts note. Exported so the system prompt, the
 * executor and the tests all agree on one list.
 */
export const ACTIONS = Object.freeze({
  Click: [P('point', 'point', { aliases: POINT_ALIASES })],
  DoubleClick: [P('point', 'point', { aliases: POINT_ALIASES })],
  RightClick: [P('point', 'point', { aliases: POINT_ALIASES })],
  Hover: [P('point', 'point', { aliases: POINT_ALIASES })],
  LongPress: [P('point', 'point', { aliases: POINT_ALIASES }), P('duration', 'number', { required: false, min: 0, max: 30 })],
  Drag: [P('start', 'point', { aliases: ['start_box', 'start_point', 'from'] }), P('end', 'point', { aliases: ['end_box', 'end_point', 'to'] })],
  Scroll: [P('point', 'point', { aliases: POINT_ALIASES.concat(['start']) }), P('direction', 'direction')],
  Type: [P('content', 'string', { aliases: ['text', 'value'] })],
  Hotkey: [P('keys', 'keys', { aliases: ['key', 'hotkey'] }), P('repeat', 'int', { required: false, min: 1, max: 50 })],
  PressEnter: [],
  PressBack: [],
  PressHome: [],
  Launch: [P('url', 'url', { aliases: ['app', 'link'] })],
  Wait: [],
  SelectOption: [
    P('point', 'point', { required: false, aliases: POINT_ALIASES }),
    P('index', 'int', { required: false, min: 0, max: 10000 }),
    P('value', 'string', { required: false }),
    P('text', 'string', { required: false, aliases: ['option', 'label'] }),
  ],
  GetUrl: [],
  TakeNote: [P('content', 'string', { aliases: ['note', 'text'] })],
  Upload: [P('file', 'string', { aliases: ['path'] })],
  Download: [P('filename', 'string', { aliases: ['name', 'file'] })],
  SwitchSurface: [P('surface', 'surface', { aliases: ['to', 'target'] })],
  Finished: [P('content', 'string', { required: false, aliases: ['answer', 'text'] })],
  CallUser: [P('content', 'string', { aliases: ['question', 'text'] })],
});

/**
 * Parses one model reply.
 * @param {string} text the assistant message content
 * @param {{maxCoord?: number}} [opts] largest coordinate accepted (999 for normalised
 *   models; larger for the 'absolute' pixel coordinate mode)
 * @returns {{ok:true, think:string, action:{name:string, args:object}, raw:string} | {ok:false, error:string}}
 */
export function parseReply(text, opts = {}) {
  const maxCoord = opts.maxCoord ?? COORD_MAX;
  if (typeof text !== 'string' || text.trim() === '') return fail('the reply is empty');
  const think = extractThink(text);
  const found = extractActionText(text);
  if (found.error) return fail(found.error);
  const call = parseCall(found.text);
  if (call.error) return fail(call.error);
  const checked = checkArgs(call.name, call.positional, call.named, maxCoord);
  if (checked.error) return fail(checked.error);
  return { ok: true, think, action: { name: call.name, args: checked.args }, raw: found.text };
}

function fail(error) {
  return { ok: false, error };
}

function extractThink(text) {
  const m = /<think>([\s\S]*?)<\/think>/i.exec(text);
  if (m) return m[1].trim();
  // Everything before the action is the reasoning when the tags are missing.
  const cut = text.search(/<action>|^\s*Action\s*:/im);
  return (cut > 0 ? text.slice(0, cut) : '').replace(/<\/?think>/gi, '').trim();
}

function extractActionText(text) {
  const tagged = [...text.matchAll(/<action>([\s\S]*?)<\/action>/gi)];
  if (tagged.length > 1) return { error: `expected exactly one <action>, found ${tagged.length}` };
  if (tagged.length === 1) {
    const inner = tagged[0][1].trim();
    if (inner === '') return { error: 'the <action> block is empty' };
    return { text: inner };
  }
  if (/<action>/i.test(text)) return { error: '<action> is not closed with </action>' };
  const lines = [...text.matchAll(/^\s*Action\s*:\s*(.+?)\s*$/gim)];
  if (lines.length > 1) return { error: `expected exactly one Action: line, found ${lines.length}` };
  if (lines.length === 1) return { text: lines[0][1] };
  return { error: 'no action found: reply with <action>Name(arguments)</action>' };
}

// ---- tokenizer -------------------------------------------------------------

function tokenize(src) {
  const tokens = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if ('()[],='.includes(c)) { tokens.push({ t: c, pos: i }); i++; continue; }
    if (c === '"' || c === "'") {
      let out = '';
      let j = i + 1;
      let closed = false;
      while (j < src.length) {
        const d = src[j];
        if (d === '\\') {
          if (j + 1 >= src.length) break;
          const e = src[j + 1];
          const map = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"' };
          if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(j + 2, j + 6))) {
            out += String.fromCharCode(parseInt(src.slice(j + 2, j + 6), 16));
            j += 6;
            continue;
          }
          out += Object.hasOwn(map, e) ? map[e] : e;
          j += 2;
          continue;
        }
        if (d === c) { closed = true; break; }
        out += d;
        j++;
      }
      if (!closed) return { error: `unterminated string starting at column ${i + 1}` };
      tokens.push({ t: 'str', v: out, pos: i });
      i = j + 1;
      continue;
    }
    const num = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/.exec(src.slice(i));
    if (num) { tokens.push({ t: 'num', v: Number(num[0]), pos: i }); i += num[0].length; continue; }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
    if (id) { tokens.push({ t: 'id', v: id[0], pos: i }); i += id[0].length; continue; }
    return { error: `unexpected character ${JSON.stringify(c)} at column ${i + 1}` };
  }
  return { tokens };
}

// call := id '(' [arg (',' arg)*] [','] ')'
// arg  := [id '='] value ; value := str | num | tuple ; tuple := ('('|'[') values (')'|']')
function parseCall(src) {
  const tk = tokenize(src.replace(/;\s*$/, ''));
  if (tk.error) return tk;
  const toks = tk.tokens;
  let p = 0;
  const peek = () => toks[p];
  if (!peek() || peek().t !== 'id') return { error: 'the action must start with an action name' };
  const name = toks[p++].v;
  if (!Object.hasOwn(ACTIONS, name)) {
    return { error: `unknown action ${name}; known actions: ${Object.keys(ACTIONS).join(', ')}` };
  }
  if (!peek()) return { positional: [], named: {}, name }; // bare `Wait` is harmless
  if (peek().t !== '(') return { error: `expected "(" after ${name}` };
  p++;
  const positional = [];
  const named = {};
  function value() {
    const t = peek();
    if (!t) return { error: 'the argument list is not closed' };
    if (t.t === 'str' || t.t === 'num') { p++; return { v: t.v }; }
    if (t.t === 'id' && (t.v === 'True' || t.v === 'False' || t.v === 'true' || t.v === 'false')) {
      p++;
      return { v: /^t/i.test(t.v) };
    }
    if (t.t === '(' || t.t === '[') {
      const close = t.t === '(' ? ')' : ']';
      p++;
      const items = [];
      while (peek() && peek().t !== close) {
        const it = peek();
        if (it.t !== 'str' && it.t !== 'num') return { error: `a tuple may hold only numbers or strings (column ${it.pos + 1})` };
        items.push(it.v);
        p++;
        if (peek() && peek().t === ',') p++;
        else if (peek() && peek().t !== close) return { error: `expected "," or "${close}" in a tuple (column ${peek().pos + 1})` };
      }
      if (!peek()) return { error: `tuple not closed with "${close}"` };
      p++;
      return { v: items, tuple: true };
    }
    return { error: `unexpected ${t.t === 'id' ? t.v : t.t} in the arguments (column ${t.pos + 1}); strings must be quoted` };
  }
  while (peek() && peek().t !== ')') {
    if (peek().t === 'id' && toks[p + 1] && toks[p + 1].t === '=') {
      const key = peek().v;
      p += 2;
      const v = value();
      if (v.error) return v;
      if (Object.hasOwn(named, key)) return { error: `argument ${key} given twice` };
      named[key] = v.v;
    } else {
      if (Object.keys(named).length) return { error: 'a positional argument follows a keyword argument' };
      const v = value();
      if (v.error) return v;
      positional.push(v.v);
    }
    if (peek() && peek().t === ',') p++;
    else if (peek() && peek().t !== ')') return { error: `expected "," or ")" (column ${peek().pos + 1})` };
  }
  if (!peek()) return { error: 'the argument list is not closed with ")"' };
  p++;
  if (p !== toks.length) return { error: `unexpected text after ${name}(...); give exactly one action` };
  return { name, positional, named };
}

// ---- argument checking -----------------------------------------------------

function checkArgs(name, positional, named, maxCoord) {
  const spec = ACTIONS[name];
  const args = {};
  // Two bare numbers for a single point parameter: Click(120, 340).
  if (spec[0] && spec[0].type === 'point' && positional.length === 2 && positional.every((v) => typeof v === 'number') && spec.length < 2) {
    positional = [positional];
  }
  // Hotkey('ctrl', 'c'): several bare key names are one key chord.
  if (name === 'Hotkey' && positional.length > 1 && positional.every((v) => typeof v === 'string')) {
    positional = [positional];
  }
  if (positional.length > spec.length) return { error: `${name} takes at most ${spec.length} argument(s), got ${positional.length}` };
  positional.forEach((v, i) => { args[spec[i].name] = v; });
  for (const [key, v] of Object.entries(named)) {
    const param = spec.find((s) => s.name === key || s.aliases.includes(key));
    if (!param) return { error: `${name} has no argument ${key}; expected ${describe(spec)}` };
    if (Object.hasOwn(args, param.name)) return { error: `argument ${param.name} of ${name} given twice` };
    args[param.name] = v;
  }
  const out = {};
  for (const param of spec) {
    if (!Object.hasOwn(args, param.name)) {
      if (param.required) return { error: `${name} needs ${param.name}; expected ${describe(spec)}` };
      continue;
    }
    const r = coerce(name, param, args[param.name], maxCoord);
    if (r.error) return r;
    out[param.name] = r.v;
  }
  if (name === 'SelectOption') {
    const choices = ['index', 'value', 'text'].filter((k) => Object.hasOwn(out, k));
    if (choices.length !== 1) return { error: 'SelectOption needs exactly one of index, value or text (and optionally the point of the <select>)' };
  }
  return { args: out };
}

function describe(spec) {
  if (spec.length === 0) return 'no arguments';
  return spec.map((s) => `${s.name}${s.required ? '' : '?'}: ${s.type}`).join(', ');
}

function coerce(action, param, v, maxCoord) {
  const where = `${action} ${param.name}`;
  switch (param.type) {
    case 'point': {
      if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => typeof n === 'number')) {
        return { error: `${where} must be a point (x,y) or [x,y]` };
      }
      for (const n of v) {
        if (!Number.isFinite(n) || n < 0 || n > maxCoord) {
          return { error: `${where} coordinate ${n} is outside 0..${maxCoord}` };
        }
      }
      return { v: [v[0], v[1]] };
    }
    case 'string':
      if (typeof v !== 'string') return { error: `${where} must be a quoted string` };
      return { v };
    case 'url': {
      if (typeof v !== 'string') return { error: `${where} must be a quoted URL` };
      let u = v.trim();
      if (!/^[a-z][a-z0-9+.-]*:/i.test(u)) u = 'https://' + u;
      let parsed;
      try { parsed = new URL(u); } catch { return { error: `${where} is not a valid URL` }; }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: `${where} must be an http or https URL` };
      return { v: parsed.href };
    }
    case 'number':
    case 'int': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) return { error: `${where} must be a number` };
      if (param.type === 'int' && !Number.isInteger(n)) return { error: `${where} must be a whole number` };
      if (param.min !== undefined && n < param.min) return { error: `${where} ${n} is below ${param.min}` };
      if (param.max !== undefined && n > param.max) return { error: `${where} ${n} is above ${param.max}` };
      return { v: n };
    }
    case 'direction': {
      const d = typeof v === 'string' ? v.trim().toLowerCase() : '';
      if (!DIRECTIONS.includes(d)) return { error: `${where} must be one of ${DIRECTIONS.join(', ')}` };
      return { v: d };
    }
    case 'surface': {
      const d = typeof v === 'string' ? v.trim().toLowerCase() : '';
      if (!SURFACES.includes(d)) return { error: `${where} must be 'tab' or 'desktop'` };
      return { v: d };
    }
    case 'keys': {
      let keys;
      if (typeof v === 'string') keys = v.split(/\s*\+\s*|\s+/).filter(Boolean);
      else if (Array.isArray(v) && v.every((k) => typeof k === 'string')) keys = v.map((k) => k.trim()).filter(Boolean);
      else return { error: `${where} must be key names such as ('ctrl','c')` };
      if (keys.length < 1 || keys.length > 3) return { error: `${where} must name 1 to 3 keys, got ${keys.length}` };
      return { v: keys };
    }
    default:
      return { error: `${where}: unsupported type ${param.type}` };
  }
}

/** Formats an action back into the canonical call syntax, for transcripts and comparisons. */
export function formatAction(action) {
  const parts = Object.entries(action.args || {}).map(([k, v]) => `${k}=${formatValue(v)}`);
  return `${action.name}(${parts.join(', ')})`;
}

function formatValue(v) {
  if (Array.isArray(v)) return `(${v.map(formatValue).join(',')})`;
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  return String(v);
}
