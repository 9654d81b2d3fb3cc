// What the agent shows and keeps of text a model server sent: an error body
// that is an HTML page (a proxy's 401, a login page) becomes its words, not
// its markup; and the configured API key, which a server may echo back ("key
// sk-… is invalid"), is masked wherever it appears, in errors, replies and
// streamed text alike, before the panel shows it or the conversation stores
// it. Pure: no chrome.*, no DOM.
import { maskSecrets, streamSafeLength } from '../../shared/core/secret_forms.js';

/** How much of an error body is kept (characters). */
export const DETAIL_MAX = 300;

/** Keys shorter than this are masked in error texts only (a 4-letter key would mask ordinary words in replies). */
export const SHORT_KEY = 8;

const ENTITIES = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', middot: '·', hellip: '…', mdash: '—', ndash: '–',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', copy: '©', bull: '•', raquo: '»', laquo: '«',
};

function decodeEntities(text) {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** True when a body reads as HTML (or XML) markup rather than text or JSON. */
export function looksLikeMarkup(text) {
  const t = String(text || '').trimStart().slice(0, 2048);
  return /^<(!doctype|html|head|body|\?xml|[a-z][a-z0-9]*[\s>/])/i.test(t) && /<\/?[a-z][^>]*>/i.test(t);
}

/**
 * The words of an HTML page: its title, then the text of its body, without
 * scripts, styles, comments or tags, entities decoded, white space collapsed;
 * the body's first words are dropped when they only repeat the title.
 */
export function markupToText(html) {
  let s = String(html || '');
  s = s.replace(/<!--[\s\S]*?(-->|$)/g, ' ');
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(s);
  s = s.replace(/<(script|style|title|noscript|template|svg)\b[^>]*>[\s\S]*?(<\/\1\s*>|$)/gi, ' ');
  s = s.replace(/<\/?[a-z!?][^>]*>?/gi, ' ');
  const tidy = (t) => decodeEntities(t).replace(/[<>]/g, ' ').replace(/\s+/g, ' ').trim();
  const head = title ? tidy(title[1].replace(/<[^>]*>/g, ' ')) : '';
  const body = tidy(s);
  if (!head) return body;
  if (!body || body === head) return head;
  return body.startsWith(head) ? body : `${head}: ${body}`;
}

/** The key as masked text: its first 3 and last 4 characters when it is long, dots otherwise. */
export function maskedKey(key) {
  const k = String(key || '');
  return k.length >= 16 ? `${k.slice(0, 3)}…${k.slice(-4)}` : '••••••';
}

/** Whether the key is looked for in a text (a short one only in error texts). */
function keyToMask(key, error) {
  const k = String(key || '').trim();
  return !k || (k.length < SHORT_KEY && !error) || k.length < 4 ? '' : k;
}

/**
 * Text with every occurrence of the key masked, in any form a server may
 * echo it (shared/core/secret_forms.js): as typed, URL-encoded,
 * JSON-escaped or \u-escaped, cut by a line break, base64-encoded.
 * @param {string} text
 * @param {string} key the configured API key ('' masks nothing)
 * @param {{error?: boolean}} [opts] error texts mask short keys too
 */
export function maskKey(text, key, { error = false } = {}) {
  const s = String(text ?? '');
  const k = keyToMask(key, error);
  return k ? maskSecrets(s, [k], maskedKey(k)) : s;
}

/**
 * What of a streamed reply may be shown now: the text so far with the key
 * masked, less a tail that may be the start of the key still arriving (so a
 * key cut across two chunks never shows in halves).
 */
export function maskKeyStreaming(text, key) {
  const s = String(text ?? '');
  const k = keyToMask(key, false);
  return k ? maskKey(s.slice(0, streamSafeLength(s, [k])), k) : s;
}

/**
 * The message of a JSON error body, in the shapes servers use: OpenAI's
 * {"error": {"message"}}, {"message"}, {"error": "..."}, and FastAPI's
 * {"detail": "..."} or {"detail": [{"msg", "loc"}, …]} (validation errors);
 * null when none is there.
 */
function jsonMessage(j) {
  const m = j?.error?.message || j?.message || j?.error;
  if (typeof m === 'string') return m;
  const d = j?.detail;
  if (typeof d === 'string') return d;
  if (typeof d?.message === 'string') return d.message;
  if (Array.isArray(d)) {
    const msgs = d.map((e) => (typeof e === 'string' ? e : typeof e?.msg === 'string' ? `${Array.isArray(e.loc) ? `${e.loc.join('.')}: ` : ''}${e.msg}` : '')).filter(Boolean);
    if (msgs.length) return msgs.join('; ');
  }
  return null;
}

/**
 * What the agent shows of an error body: the server's own message from a
 * JSON error, or the words of an HTML page, or the text; cut to DETAIL_MAX,
 * the key masked.
 */
export function errorDetail(text, key = '') {
  const raw = String(text || '');
  let detail = null;
  try {
    detail = jsonMessage(JSON.parse(raw));
  } catch { /* not JSON */ }
  if (detail === null) detail = looksLikeMarkup(raw) ? markupToText(raw) || '(an HTML page without text)' : raw || '(empty body)';
  if (looksLikeMarkup(detail)) detail = markupToText(detail);
  detail = maskKey(detail, key, { error: true });
  return detail.length > DETAIL_MAX ? `${detail.slice(0, DETAIL_MAX - 1)}…` : detail;
}
