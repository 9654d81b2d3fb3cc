// Desktop profiles: how the agent's desktop actions become calls of an MCP
// server's tools, run through the host like any capability.
//
// A profile maps each desktop verb (screenshot, click, right_click,
// double_click, move, drag, type, key, scroll) to one or more tool calls;
// wait runs in the extension. A call's arguments are a JSON template whose
// strings starting with "$" are filled in:
//   $x $y          the point, in pixels of the server's own screenshot
//   $point         [x, y]            $at      {x, y}
//   $fromPoint     [x, y] of a drag's start, $from {x, y}; $toPoint / $to its end
//   $text          the text to type
//   $keys          the key chord: "ctrl+c" (keyFormat 'plus') or ["ctrl","c"] ('list')
//   $direction     up, down, left or right;  $amount the scroll's amount
//   $scroll        "down:300" (direction:amount, computer-use-mcp's form)
// A server may ignore a cancel and run a long action to its end (computer-use-mcp
// types with one blocking xdotool call), so long actions go in short pieces:
// typeChunk characters per type call, and a scroll of scrollAmount in calls of
// at most scrollChunk; a Stop lets no further piece start, so at most the one
// in flight lands after it (desktop_actions.js). Wait runs in the extension
// and ends at Stop at once.
// Two are built in: computer-use-mcp's one `computer` tool with an `action`
// argument, and a tool per action (Munim's screenshot, click, type_text,
// press_keys, scroll, move_mouse, drag). The profile in use is the person's
// own (Settings) when its tools are listed, else the first built-in whose
// tools one provider lists. Pure module.

import { schemaProblems } from './desktop_schema.js';
import { MAX_SOURCE_IMAGE_BYTES, base64Bytes } from '../../shared/core/images.js';

/** The desktop verbs a profile maps, in the order Settings shows them. */
export const DESKTOP_VERBS = Object.freeze(['screenshot', 'click', 'right_click', 'double_click', 'move', 'drag', 'type', 'key', 'scroll']);

const cum = (action, extra = {}) => [{ tool: 'computer', args: { action, ...extra } }];

/** The built-in profiles, most specific first. */
export const BUILTIN_PROFILES = Object.freeze([
  Object.freeze({
    id: 'computer-use-mcp',
    name: 'computer-use-mcp (one computer tool)',
    keyFormat: 'plus',
    scrollAmount: 300,
    // xdotool types 10 ms a character: a piece is done in about a quarter of a second.
    typeChunk: 24,
    scrollChunk: 100,
    actions: {
      screenshot: cum('get_screenshot'),
      click: cum('left_click', { coordinate: '$point' }),
      right_click: cum('right_click', { coordinate: '$point' }),
      double_click: cum('double_click', { coordinate: '$point' }),
      move: cum('mouse_move', { coordinate: '$point' }),
      // Its drag goes from where the pointer is: move there first.
      drag: [...cum('mouse_move', { coordinate: '$fromPoint' }), ...cum('left_click_drag', { coordinate: '$toPoint' })],
      type: cum('type', { text: '$text' }),
      key: cum('key', { text: '$keys' }),
      scroll: cum('scroll', { coordinate: '$point', text: '$scroll' }),
    },
  }),
  Object.freeze({
    id: 'tool-per-action',
    name: 'A tool per action (Munim)',
    keyFormat: 'list',
    scrollAmount: 5,
    typeChunk: 24,
    actions: {
      screenshot: [{ tool: 'screenshot', args: { format: 'png' } }],
      click: [{ tool: 'click', args: { x: '$x', y: '$y', button: 'left' } }],
      right_click: [{ tool: 'click', args: { x: '$x', y: '$y', button: 'right' } }],
      double_click: [{ tool: 'click', args: { x: '$x', y: '$y', button: 'left', double: true } }],
      move: [{ tool: 'move_mouse', args: { to: '$at' } }],
      drag: [{ tool: 'drag', args: { from: '$from', to: '$to' } }],
      type: [{ tool: 'type_text', args: { text: '$text' } }],
      key: [{ tool: 'press_keys', args: { keys: '$keys' } }],
      scroll: [{ tool: 'move_mouse', args: { to: '$at' } }, { tool: 'scroll', args: { direction: '$direction', amount: '$amount' } }],
    },
  }),
]);

/** The tools a profile names. */
export function toolsOf(profile) {
  const names = new Set();
  for (const calls of Object.values(profile?.actions || {})) for (const c of calls || []) names.add(c.tool);
  return [...names];
}

/** The provider prefixes of a capability list (capabilities.list names, "<prefix>.<tool>"). */
function byPrefix(capabilities) {
  const out = new Map();
  for (const c of capabilities || []) {
    const name = typeof c === 'string' ? c : c?.name;
    if (typeof name !== 'string' || c?.unavailable) continue;
    const dot = name.indexOf('.');
    if (dot <= 0 || name.startsWith('capabilities.')) continue;
    const prefix = name.slice(0, dot);
    if (!out.has(prefix)) out.set(prefix, new Set());
    out.get(prefix).add(name.slice(dot + 1));
  }
  return out;
}

/**
 * Which profile drives the desktop, on which provider: the person's own
 * profile when it names a prefix whose tools are all listed, else the first
 * built-in whose tools one provider lists. null when no provider has a
 * screenshot tool a profile can use: the desktop is not offered.
 * @param {Array<{name:string, unavailable?:string}>} capabilities capabilities.list
 * @param {{prefix?:string, profile?:object}} [custom] the person's saved choice
 * @returns {{prefix:string, profile:object, custom:boolean} | null}
 */
export function chooseProfile(capabilities, custom = null) {
  const prefixes = byPrefix(capabilities);
  const fits = (tools, profile) => tools && toolsOf(profile).every((t) => tools.has(t));
  if (custom?.profile && custom.prefix && fits(prefixes.get(custom.prefix), custom.profile)) {
    return { prefix: custom.prefix, profile: custom.profile, custom: true };
  }
  for (const profile of BUILTIN_PROFILES) {
    for (const [prefix, tools] of [...prefixes].sort(([a], [b]) => a.localeCompare(b))) {
      if (fits(tools, profile)) return { prefix, profile, custom: false };
    }
  }
  return null;
}

/**
 * Why the desktop cannot be offered with these capabilities, for the panel:
 * names what is missing.
 */
export function whyNoDesktop(capabilities, custom = null) {
  const prefixes = byPrefix(capabilities);
  if (custom?.profile && custom.prefix) {
    const missing = missingTools(custom.profile, custom.prefix, capabilities);
    if (missing.length) return `Your desktop profile names ${missing.map((m) => `"${m}"`).join(', ')}, which the host does not list.`;
  }
  if (!prefixes.size) return 'The host lists no MCP tools, so there is no desktop to drive: add a desktop server (computer-use-mcp, Munim) on the setup page.';
  return `No MCP server the host lists has a screenshot tool a desktop profile can use (servers: ${[...prefixes.keys()].join(', ')}). Add a desktop server (computer-use-mcp, Munim), or map its tools in the side panel's Settings → Desktop.`;
}

/** The capabilities a profile names that the list lacks, as "<prefix>.<tool>". */
export function missingTools(profile, prefix, capabilities) {
  const tools = byPrefix(capabilities).get(prefix) || new Set();
  return toolsOf(profile).filter((t) => !tools.has(t)).map((t) => `${prefix}.${t}`);
}

const SAMPLE = Object.freeze({ point: [10, 20], from: [10, 20], to: [30, 40], text: 'a', keys: ['ctrl', 'a'], direction: 'down' });

/**
 * Everything wrong with a profile before it is saved: verbs without calls,
 * a screenshot verb missing, tools the host does not list, and arguments
 * (filled with sample values) the tool's input schema refuses.
 * @param {object} profile
 * @param {string} prefix the provider prefix it is for
 * @param {Array} capabilities capabilities.list
 * @param {Object<string, object>} schemas capability name -> inputSchema (capabilities.describe)
 * @returns {string[]} problems, [] when it can be saved
 */
export function profileProblems(profile, prefix, capabilities, schemas = {}) {
  const out = [];
  if (!profile || typeof profile !== 'object' || !profile.actions || typeof profile.actions !== 'object') return ['the profile has no actions'];
  if (!['plus', 'list'].includes(profile.keyFormat)) out.push('keyFormat must be "plus" or "list"');
  for (const k of ['scrollAmount', 'typeChunk', 'scrollChunk']) {
    if (profile[k] !== undefined && !(Number.isInteger(profile[k]) && profile[k] > 0)) out.push(`${k} must be a whole number above 0`);
  }
  for (const verb of Object.keys(profile.actions)) if (!DESKTOP_VERBS.includes(verb)) out.push(`"${verb}" is not a desktop action (${DESKTOP_VERBS.join(', ')})`);
  if (!profile.actions.screenshot?.length) out.push('the profile maps no screenshot: the desktop cannot be seen without one');
  for (const m of missingTools(profile, prefix, capabilities)) out.push(`${m} is not listed by the host`);
  for (const verb of DESKTOP_VERBS) {
    const calls = profile.actions[verb];
    if (calls === undefined) continue;
    if (!Array.isArray(calls) || calls.some((c) => !c || typeof c.tool !== 'string' || !c.tool || (c.args !== undefined && (typeof c.args !== 'object' || Array.isArray(c.args))))) {
      out.push(`${verb}: each call needs a "tool" name and an "args" object`);
      continue;
    }
    for (const call of callsFor(profile, prefix, verb, SAMPLE)) {
      const schema = schemas[call.capability];
      if (!schema) continue;
      for (const p of schemaProblems(schema, call.arguments)) out.push(`${verb} → ${call.capability} ${p}`);
    }
  }
  return out;
}

function keysValue(keys, format) {
  const names = keys.map((k) => String(k).toLowerCase());
  return format === 'list' ? names : names.join('+');
}

function fill(template, v, profile) {
  if (typeof template === 'string' && template.startsWith('$')) {
    const p = v.point || v.from;
    switch (template) {
      case '$x': return p?.[0];
      case '$y': return p?.[1];
      case '$point': return p;
      case '$at': return p && { x: p[0], y: p[1] };
      case '$fromPoint': return v.from;
      case '$from': return v.from && { x: v.from[0], y: v.from[1] };
      case '$toPoint': return v.to;
      case '$to': return v.to && { x: v.to[0], y: v.to[1] };
      case '$text': return v.text;
      case '$keys': return v.keys && keysValue(v.keys, profile.keyFormat);
      case '$direction': return v.direction;
      case '$amount': return v.amount ?? profile.scrollAmount ?? 3;
      case '$scroll': return v.direction && `${v.direction}:${v.amount ?? profile.scrollAmount ?? 300}`;
      default: return template;
    }
  }
  if (Array.isArray(template)) return template.map((t) => fill(t, v, profile));
  if (template && typeof template === 'object') {
    const out = {};
    for (const [k, t] of Object.entries(template)) {
      const filled = fill(t, v, profile);
      if (filled !== undefined) out[k] = filled;
    }
    return out;
  }
  return template;
}

/**
 * The host calls one desktop verb makes, in order.
 * @param {object} profile
 * @param {string} prefix
 * @param {string} verb one of DESKTOP_VERBS
 * @param {{point?:[number,number], from?:[number,number], to?:[number,number], text?:string,
 *   keys?:string[], direction?:string, amount?:number}} values points in pixels of the server's screenshot;
 *   amount: a scroll's (the profile's scrollAmount when not given)
 * @returns {Array<{capability:string, arguments:object}>} [] when the profile does not map the verb
 */
export function callsFor(profile, prefix, verb, values) {
  return (profile?.actions?.[verb] || []).map((c) => ({ capability: `${prefix}.${c.tool}`, arguments: fill(c.args || {}, values, profile) }));
}

/**
 * The grant each of a profile's tools is suggested: Allow for a tool only
 * the screenshot uses, Ask for every tool that acts (computer-use-mcp's one
 * tool both looks and acts, so it is Ask).
 */
export function suggestedGrants(profile, prefix) {
  const out = {};
  for (const verb of DESKTOP_VERBS) {
    for (const c of profile.actions[verb] || []) {
      const name = `${prefix}.${c.tool}`;
      out[name] = verb === 'screenshot' && out[name] !== 'ask' ? 'allow' : 'ask';
    }
  }
  return out;
}

/**
 * What the agent uses each of a profile's tools for, in words, by capability
 * name: {"desktop.computer": ["screenshots", "clicks", …]}.
 */
export function toolUses(profile, prefix) {
  const out = {};
  for (const verb of DESKTOP_VERBS) {
    for (const c of profile.actions[verb] || []) {
      const name = `${prefix}.${c.tool}`;
      out[name] ||= [];
      if (!out[name].includes(VERB_WORDS[verb])) out[name].push(VERB_WORDS[verb]);
    }
  }
  return out;
}

const VERB_WORDS = Object.freeze({
  screenshot: 'screenshots', click: 'clicks', right_click: 'right clicks', double_click: 'double clicks', move: 'pointer moves',
  drag: 'drags', type: 'typing', key: 'keys', scroll: 'scrolling',
});

/** Largest screenshot accepted from a desktop server (decoded bytes). */
export const MAX_SCREENSHOT_BYTES = MAX_SOURCE_IMAGE_BYTES;

/**
 * The screenshot in a tool's result: its first image content (PNG or JPEG).
 * @param {object} result the MCP tool result as the host returns it
 * @param {string} capability for the messages
 * @returns {{ok:true, base64:string, mime:string, bytes:number} | {ok:false, error:string}}
 */
export function screenshotFrom(result, capability) {
  if (result?.isError) {
    const text = (result.content || []).filter((c) => c?.type === 'text').map((c) => c.text).join(' ').trim();
    return { ok: false, error: `${capability} failed: ${text.slice(0, 300) || 'the tool reported an error'}` };
  }
  const parts = Array.isArray(result?.content) ? result.content : [];
  const img = parts.find((c) => c?.type === 'image');
  if (!img) {
    const kinds = parts.map((c) => c?.type).filter(Boolean);
    return { ok: false, error: `${capability} returned no image (${kinds.length ? `only ${kinds.join(', ')} content` : 'no content'}); the desktop profile's screenshot must name a tool that returns one` };
  }
  const mime = String(img.mimeType || '').toLowerCase();
  if (mime !== 'image/png' && mime !== 'image/jpeg') return { ok: false, error: `${capability} returned a ${mime || 'untyped'} image; the agent reads PNG or JPEG screenshots` };
  const base64 = String(img.data || '').replace(/\s+/g, '');
  if (!base64) return { ok: false, error: `${capability} returned an empty image` };
  const bytes = base64Bytes(base64);
  if (bytes > MAX_SCREENSHOT_BYTES) return { ok: false, error: `${capability} returned a ${Math.round(bytes / 1048576)} MiB screenshot; at most ${MAX_SCREENSHOT_BYTES / 1048576} MiB is accepted` };
  return { ok: true, base64, mime, bytes };
}
