// Redaction of what the activity log keeps, by the rules the host uses for
// its debug log (runtime/redact.go): values of secret-named fields (password,
// token, apiKey, Authorization, cookie, … at any depth) become "[redacted]";
// every string, keys included, has its obvious secrets masked (bearer
// tokens, keys that begin with a prefix services issue: sk-, ghp_, xoxb-,
// AKIA, hf_, … (KEY_PREFIXES), JSON web tokens, the values
// of key=, token=, password= …); each string is cut to 200 bytes and the
// whole to about 2 KiB. Lengths count UTF-8 bytes, as in Go, and objects come
// out with their keys sorted, so a value redacts to the same JSON text on
// both sides: runtime/testdata/redact_table.json holds the cases both test
// suites run. On top, the rules the host applies to free text (host/redact):
// the value after a secret word in prose ("my password is …", "session
// cookie …", "the token is …", even on the next line), private key blocks
// (PEM, OpenSSH, PGP), and a quoted value read past its escaped quotes (\");
// tests/redaction_cases.json holds the forms both sides must mask. Pure.

import { maskSecrets } from '../../shared/core/secret_forms.js';

/** Stands in for a secret. */
export const REDACTED = '[redacted]';

/** Bytes kept of each string (runtime/log.go maxLoggedValue). */
export const MAX_VALUE_BYTES = 200;

/** About how many bytes of text redactJSON keeps from all values together (maxRedactedJSON). */
export const MAX_REDACTED_BYTES = 2048;

/** Values whose JSON is larger than this (images, files) are only counted (maxDecodedJSON). */
export const MAX_DECODED_BYTES = 1 << 20;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The length of s in UTF-8 bytes (a lone surrogate counts as U+FFFD, as
 * TextEncoder writes it), counted without encoding: a call's result can be a
 * screenshot's megabyte of base64.
 */
export function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: two units, four bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** s cut to at most n UTF-8 bytes at a character boundary, with "…" when cut. */
export function truncate(s, n) {
  const bytes = encoder.encode(s);
  if (bytes.length <= n) return s;
  let cut = n;
  while (cut > 0 && (bytes[cut] & 0xc0) === 0x80) cut--;
  return decoder.decode(bytes.subarray(0, cut)) + '…';
}

// Name fragments that mark a secret wherever they appear in a name's letters
// and digits, and words that mark one only as a whole word ("key", not "keyboard").
const SECRET_PARTS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey',
  'authorization', 'cookie', 'credential', 'privatekey', 'accesskey', 'signature', 'sessionid'];
const SECRET_WORDS = new Set(['key', 'pwd', 'pass', 'auth']);

const LETTER_OR_DIGIT = /[\p{L}\p{Nd}]/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
const DIGIT = /\p{Nd}/u;

/**
 * A name split into lower-case words at punctuation and at case changes:
 * "X-Api-Key", "apiKey", "API_KEY" and "APIKey" all give api, key.
 */
export function nameWords(name) {
  const words = [];
  let cur = [];
  const flush = () => {
    if (cur.length) words.push(cur.join('').toLowerCase());
    cur = [];
  };
  const rs = [...String(name)];
  rs.forEach((c, i) => {
    if (!LETTER_OR_DIGIT.test(c)) {
      flush();
      return;
    }
    if (UPPER.test(c) && cur.length) {
      const prev = cur[cur.length - 1];
      const nextLower = i + 1 < rs.length && LOWER.test(rs[i + 1]);
      if (LOWER.test(prev) || DIGIT.test(prev) || (UPPER.test(prev) && nextLower)) flush();
    }
    cur.push(c);
  });
  flush();
  return words;
}

/** Whether a field or parameter name looks like it holds a secret. */
export function secretName(name) {
  const words = nameWords(name);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  const flat = words.join('');
  return SECRET_PARTS.some((p) => flat.includes(p));
}

// The prefixes that begin the keys services issue: runtime/keyprefix/prefixes.txt,
// which the unit test checks this list against (the host's log redaction and its
// relay use that file).
export const KEY_PREFIXES = [
  'sk-', 'sk_', 'pk_live_', 'pk_test_', 'rk_live_', 'rk_test_', 'whsec_',
  'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_',
  'glpat-', 'gldt-',
  'xoxb-', 'xoxp-', 'xoxa-', 'xoxo-', 'xoxr-', 'xoxs-', 'xoxe-', 'xapp-',
  'AKIA', 'ASIA',
  'AIza', 'ya29.', 'GOCSPX-',
  'hf_', 'gsk_', 'r8_', 'pplx-', 'nvapi-', 'csk-', 'fw_', 'xai-', 'sk-or-',
  'npm_', 'pypi-', 'dop_v1_', 'shpat_', 'shpss_', 'SG.', 'key-',
];

/** The words of a regular expression alternation matching any of words literally, longest first. */
function alternation(words) {
  return words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .sort((a, b) => b.length - a.length).join('|');
}

// Credentials of well-known shapes in free text, each with what replaces it:
// bearer tokens; sk- keys, which keep their prefix; every other key of a known
// prefix (then at least 8 letters, digits, - or _, and any further dot-joined
// parts); JSON web tokens.
const SECRET_PATTERNS = [
  [/\b(bearer[\t\n\f\r ]+)[A-Za-z0-9\-._~+/]+=*/gi, `$1${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, `sk-${REDACTED}`],
  [new RegExp(`\\b(?:${alternation(KEY_PREFIXES)})[A-Za-z0-9_-]{8,}(?:\\.[A-Za-z0-9_-]+)*`, 'g'), REDACTED],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, REDACTED],
];

// "name=" or "name:" (query strings, headers, "password: hunter2", "token": "…", and JSON
// quoted inside a string: \"token\": \"…\").
const ASSIGNMENT = /([A-Za-z0-9_.-]+)\\?["']?[\t\n\f\r ]*[=:][\t\n\f\r ]*((?:\\?["'])?)/g;
const AUTH_SCHEMES = ['basic ', 'bearer ', 'digest ', 'token '];
const VALUE_ENDS = new Set(' \t\r\n&;,"\'#<>()[]{}');

/**
 * Where a quoted value starting at s[i] ends: its closing quote, not one of
 * its escaped quotes (\" in a JSON string, \\\" in JSON quoted inside a
 * string, whose own closing quote is \").
 */
function quotedEnd(s, i, quote) {
  const q = quote.at(-1);
  const escaped = quote.length > 1; // the value is JSON quoted inside a string
  for (let j = s.indexOf(q, i); j >= 0; j = s.indexOf(q, j + 1)) {
    let n = 0;
    while (j - n - 1 >= i && s[j - n - 1] === '\\') n++;
    if (escaped ? n % 4 === 1 : n % 2 === 0) return escaped ? j - 1 : j;
  }
  return s.length;
}

/** Where the value starting at s[i] ends: its closing quote, else whitespace or a separator. */
function valueEnd(s, i, quote) {
  if (quote) return quotedEnd(s, i, quote);
  for (const scheme of AUTH_SCHEMES) {
    if (s.length - i > scheme.length && s.slice(i, i + scheme.length).toLowerCase() === scheme) {
      i += scheme.length;
      break;
    }
  }
  let j = i;
  while (j < s.length && !VALUE_ENDS.has(s[j])) j++;
  return j;
}

/** s with the values of its secret-named assignments masked. */
function maskAssignments(s) {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(ASSIGNMENT)) {
    const end0 = m.index + m[0].length;
    if (m.index < last || !secretName(m[1])) continue;
    const end = valueEnd(s, end0, m[2]);
    if (end === end0) continue;
    out += s.slice(last, end0) + REDACTED;
    last = end;
  }
  return last === 0 ? s : out + s.slice(last);
}

/** Free text with its obvious secrets masked: bearer tokens, keys of known shapes, secret-named parameters. */
export function redactText(s) {
  let out = maskAssignments(String(s));
  for (const [re, to] of SECRET_PATTERNS) out = out.replace(re, to);
  return out;
}

// A private key block: its body, up to the END line, or, cut off, as far as it reads as base64.
const KEY_BLOCK = /(-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----)((?:(?!-----END )[\s\S])*?)(-----END \2-----)/g;
const KEY_BLOCK_CUT = /(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(?:[A-Za-z0-9+/=:,.-]|\s|\\[nrt])+/g;

// A secret word, an optional connector ("is", "was", "of", "=", ":"), and the value: up to white
// space, a quote, a backslash or a separator (host/redact's prose rule).
const PROSE = /(\b(?:pass(?:word|wd|phrase)|pwd|secret|token|api[ _-]?key|access[ _-]?key|private[ _-]?key|session[ _-]?id|cookie|credentials?)(?:\s+(?:is|was|of|=|:))?\s*[=:]?\s+)([^\s"'\\,;]+)/gi;

/** A value that reads as prose, not as a secret: a short lower-case word ("token expired", "cookie jar"). */
function plainWord(v) {
  return v.length <= 12 && /^[a-z.-]+$/.test(v);
}

/**
 * Free text as the host masks it where no field name says what is secret
 * (host/redact Text): redactText's shapes, private key blocks, and the value
 * after a secret word in prose.
 */
export function redactFreeText(s) {
  let out = redactText(s);
  out = out.replace(KEY_BLOCK, (_m, begin, _kind, _body, end) => `${begin}${REDACTED}${end}`);
  out = out.replace(KEY_BLOCK_CUT, (m, begin) => (m.slice(begin.length).startsWith(REDACTED) ? m : `${begin}${REDACTED}`));
  // A value an earlier rule masked only in part ("[redacted]&3x": a separator stopped it) goes whole.
  return out.replace(PROSE, (m, lead, value) => (value === REDACTED || plainWord(value) ? m : `${lead}${REDACTED}`));
}

/**
 * Text with the secrets the extension knows masked in any form (as typed,
 * escaped, encoded, cut by a line break, base64: shared/core/secret_forms.js),
 * then as redactFreeText masks it.
 */
export function redactKnowing(s, known = []) {
  return redactFreeText(maskSecrets(String(s), known, REDACTED));
}

/** Compares strings by code point, as Go orders its map keys (UTF-8 byte order). */
function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

/** JSON text of a string as Go's encoder writes it (HTML left alone, U+2028/U+2029 escaped). */
function quote(s) {
  return JSON.stringify(s).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** Walks a value, spending a budget of shown bytes; objects come out as sorted [key, value] lists. */
class Redactor {
  constructor() {
    this.left = MAX_REDACTED_BYTES;
  }

  value(v) {
    if (Array.isArray(v)) {
      const out = [];
      for (let i = 0; i < v.length; i++) {
        if (this.left <= 0) {
          out.push(`… ${v.length - i} more`);
          break;
        }
        out.push(this.value(v[i]));
      }
      return out;
    }
    if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v).sort(byCodePoint);
      const out = new Map();
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (this.left <= 0) {
          out.set('…', `${keys.length - i} more`);
          break;
        }
        const shown = this.str(k);
        out.set(shown, secretName(k) ? REDACTED : this.value(v[k]));
      }
      return out;
    }
    if (typeof v === 'string') return this.str(v);
    if (typeof v === 'number') {
      this.left -= String(v).length;
      return v;
    }
    this.left -= 4; // true, false, null
    return v;
  }

  str(s) {
    const out = truncate(redactFreeText(s), MAX_VALUE_BYTES);
    this.left -= utf8Length(out) + 2;
    return out;
  }
}

/** JSON text of what Redactor returns: Maps as objects with their keys in code-point order. */
function encode(v) {
  if (v instanceof Map) {
    const keys = [...v.keys()].sort(byCodePoint);
    return `{${keys.map((k) => `${quote(k)}:${encode(v.get(k))}`).join(',')}}`;
  }
  if (Array.isArray(v)) return `[${v.map(encode).join(',')}]`;
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return v === true ? 'true' : v === false ? 'false' : 'null';
}

/**
 * A JSON value made fit for the activity log, as JSON text: secret-named
 * fields masked, strings redacted and cut, the whole bounded; a value whose
 * JSON is over 1 MiB is replaced by its size. undefined counts as {}.
 */
export function redactJSON(value) {
  const json = JSON.stringify(value === undefined ? {} : value) ?? 'null';
  const bytes = utf8Length(json);
  if (bytes > MAX_DECODED_BYTES) return quote(`(${bytes} bytes, not shown)`);
  return encode(new Redactor().value(JSON.parse(json)));
}

/**
 * Raw text that may or may not be JSON, as the host's RedactJSON takes it:
 * one JSON value is redacted as a value; anything else is redacted and cut as
 * text and returned as a JSON string.
 */
export function redactRaw(raw) {
  const bytes = utf8Length(raw);
  if (bytes > MAX_DECODED_BYTES) return quote(`(${bytes} bytes, not shown)`);
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    return quote(truncate(redactFreeText(raw), MAX_VALUE_BYTES));
  }
  return encode(new Redactor().value(value));
}
