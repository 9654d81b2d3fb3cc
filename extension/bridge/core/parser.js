// The gate: decides whether text extracted from a chat page is exactly one
// tool call under the contract below, and nothing else. Free-form text,
// partial JSON still streaming, arrays and several objects are never calls.
// Pure: no chrome.* and no DOM, so it is tested exhaustively with node --test.
//
// Contract: the whole text (trimmed) is either a JSON object
//   {"capability": "<prefix>.<tool>" | "capabilities.<meta>", "arguments": {...}}
// or that object alone inside a single Markdown code fence (``` or ~~~, any
// info string such as json). `arguments` is optional and must be an object
// when present; no other keys are allowed. The host remains the authority on
// names and arguments; the gate only decides what is worth sending.

/** Longest text the gate looks at; anything longer is not a call. */
export const MAX_CALL_CHARS = 1 << 20;

/** Prefix of the host's meta-capabilities, always allowed through the gate. */
export const META_PREFIX = 'capabilities';

const FENCE = /^(`{3,}|~{3,})[^\n`]*\n([\s\S]*?)\n?\1[ \t]*$/;
// A tool's name as the host accepts it (runtime/toolname.go): visible
// characters, single spaces between them ("greet (structured)"); no control,
// format, default-ignorable (Hangul fillers among them) or blank character;
// at most 128 bytes (checked below).
const NAME_PART = /^[^\s\p{C}\p{Z}\p{Default_Ignorable_Code_Point}\u2800]+(?: [^\s\p{C}\p{Z}\p{Default_Ignorable_Code_Point}\u2800]+)*$/u;
const MAX_NAME_BYTES = 128;
const PREFIX = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

/**
 * Gates text as a tool call.
 * @param {string} text extracted text of the newest message
 * @param {{prefixes?: string[]}} [options] provider prefixes the host reports
 *   (default ['computer']); invalid prefixes are ignored.
 * @returns {{ok: true, call: {capability: string, arguments: object}} | {ok: false, reason: string}}
 */
export function parseToolCall(text, { prefixes = ['computer'] } = {}) {
  if (typeof text !== 'string') return no('not text');
  if (text.length > MAX_CALL_CHARS) return no('too long');
  let body = text.replace(/\r\n?/g, '\n').trim();
  if (body.startsWith('```') || body.startsWith('~~~')) {
    const m = FENCE.exec(body);
    if (!m) return no('not a single complete code fence');
    body = m[2].trim();
    if (body.includes(m[1].slice(0, 3))) return no('more than one code fence');
  }
  if (!body.startsWith('{') || !body.endsWith('}')) return no('not a JSON object');
  let value;
  try {
    value = JSON.parse(body);
  } catch {
    return no('not valid JSON');
  }
  if (!isPlainObject(value)) return no('not a JSON object');
  for (const key of Object.keys(value)) {
    if (key !== 'capability' && key !== 'arguments') return no(`unexpected key ${key}`);
  }
  const { capability } = value;
  if (typeof capability !== 'string' || capability === '') return no('capability must be a non-empty string');
  if (!allowedName(capability, prefixes)) return no('capability is not under a known prefix');
  if (Object.hasOwn(value, 'arguments') && !isPlainObject(value.arguments)) return no('arguments must be an object');
  return { ok: true, call: { capability, arguments: value.arguments ?? {} } };
}

/** Reports whether name is `<prefix>.<rest>` for a known prefix or the meta prefix. */
export function allowedName(name, prefixes = ['computer']) {
  const dot = name.indexOf('.');
  if (dot <= 0) return false;
  const head = name.slice(0, dot);
  const rest = name.slice(dot + 1);
  if (!NAME_PART.test(rest) || new TextEncoder().encode(rest).length > MAX_NAME_BYTES) return false;
  if (head === META_PREFIX) return true;
  return prefixes.some((p) => typeof p === 'string' && PREFIX.test(p) && p === head);
}

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function no(reason) {
  return { ok: false, reason };
}
