// A secret the extension knows (the agent's API key) masked in every form a
// server or a log may write it in, not only as typed: JSON-escaped (\" \\ \/),
// \u- and \x-escaped letter by letter, URL-encoded, as HTML character
// references, cut by line breaks or spaces (a wrapped log line, a PEM-like
// fold), and base64-encoded at any of its three alignments (standard and
// URL-safe alphabets). The text is read through a decoded view that keeps,
// for every character it yields, where it came from, so a match is masked
// over exactly the characters that spelled it. Also what a stream may show
// while the rest of a secret has not arrived yet (streamSafeLength). The
// same rules serve the activity log's redaction (bridge/core/redact.js), so
// the extension's two stores mask alike. Pure.

/** Secrets shorter than this are not looked for by value: they would mask ordinary words. */
export const MIN_SECRET = 4;

/** Whether a character code is white space (what \s matches). */
function isSpace(c) {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a)
    || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The value of n hex digits of s at i, or -1. */
function hexAt(s, i, n) {
  if (i + n > s.length) return -1;
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * The text as a decoded view: {chars, from, to}: chars[i] came from
 * text.slice(from[i], to[i]). Escapes (\uXXXX, \xXX, \" \\ \/, %XX, &#N; and
 * &#xH;) become the character they spell; white space and the escapes
 * \n \r \t are skipped, so a secret cut by a line break reads whole.
 */
export function decodedView(text) {
  const s = String(text);
  const codes = new Uint16Array(s.length);
  const from = new Int32Array(s.length);
  const to = new Int32Array(s.length);
  let n = 0;
  const push = (code, a, b) => {
    if (isSpace(code)) return; // a space spelled %20 or \u0020 is skipped like one typed
    codes[n] = code;
    from[n] = a;
    to[n] = b;
    n++;
  };
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 92 && i + 1 < s.length) { // backslash
      const e = s.charCodeAt(i + 1);
      let v;
      if (e === 117 && (v = hexAt(s, i + 2, 4)) >= 0) { // \uXXXX
        push(v, i, i + 6);
        i += 6;
        continue;
      }
      if (e === 120 && (v = hexAt(s, i + 2, 2)) >= 0) { // \xXX
        push(v, i, i + 4);
        i += 4;
        continue;
      }
      if (e === 34 || e === 92 || e === 47 || e === 39) { // \" \\ \/ \'
        push(e, i, i + 2);
        i += 2;
        continue;
      }
      if (e === 110 || e === 114 || e === 116) { // \n \r \t
        i += 2;
        continue;
      }
    } else if (c === 37) { // %XX
      const v = hexAt(s, i + 1, 2);
      if (v >= 0) {
        push(v, i, i + 3);
        i += 3;
        continue;
      }
    } else if (c === 38 && s.charCodeAt(i + 1) === 35) { // &#N; or &#xH;
      const m = /^&#(x[0-9a-fA-F]{1,6}|\d{1,7});/.exec(s.slice(i, i + 11));
      if (m) {
        const code = m[1][0] === 'x' ? parseInt(m[1].slice(1), 16) : parseInt(m[1], 10);
        if (code > 0 && code <= 0xffff) {
          push(code, i, i + m[0].length);
          i += m[0].length;
          continue;
        }
      }
    }
    push(c, i, i + 1);
    i++;
  }
  let chars = '';
  for (let k = 0; k < n; k += 8192) chars += String.fromCharCode.apply(null, codes.subarray(k, Math.min(n, k + 8192)));
  return { chars, from: from.subarray(0, n), to: to.subarray(0, n) };
}

/** UTF-8 bytes of a string. */
const utf8 = (s) => new TextEncoder().encode(s);

function base64Of(bytes) {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/**
 * The parts of a value's base64 that do not depend on what comes before or
 * after it in the encoded data: for each of the three alignments, the
 * characters that encode the value's bytes alone (standard and URL-safe).
 */
export function base64Cores(value) {
  const bytes = utf8(value);
  const out = new Set();
  for (let pad = 0; pad < 3; pad++) {
    const data = new Uint8Array(pad + bytes.length);
    data.set(bytes, pad);
    const b64 = base64Of(data).replace(/=+$/, '');
    // Characters before this one mix in the padding's bytes; after the last whole group, what follows.
    const start = pad === 0 ? 0 : pad === 1 ? 2 : 3;
    const whole = Math.floor((pad + bytes.length) / 3) * 4;
    const end = (pad + bytes.length) % 3 === 0 ? b64.length : whole;
    const core = b64.slice(start, end);
    if (core.length >= 8) {
      out.add(core);
      out.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...out];
}

/** What a secret is looked for as in the decoded view: itself (without white space) and its base64 cores. */
export function secretForms(value) {
  const v = String(value ?? '').replace(/\s+/g, '');
  if (v.length < MIN_SECRET) return [];
  return [...new Set([v, ...base64Cores(v)])].sort((a, b) => b.length - a.length);
}

const BASE64_CHAR = /[A-Za-z0-9+/=_-]/;

/** A range grown over the base64 characters around it: the whole encoded blob goes, its edges included. */
function wholeBlob(s, [a, b]) {
  while (a > 0 && BASE64_CHAR.test(s[a - 1])) a--;
  while (b < s.length && BASE64_CHAR.test(s[b])) b++;
  return [a, b];
}

/**
 * The ranges of text ([start, end), merged, in order) that spell one of the
 * values in any of the forms above.
 * @param {string} text
 * @param {string[]} values
 */
export function secretRanges(text, values) {
  const plain = new Set(values.map((v) => String(v ?? '').replace(/\s+/g, '')));
  const forms = values.flatMap(secretForms);
  if (!forms.length) return [];
  const s = String(text);
  const view = decodedView(s);
  const ranges = [];
  for (const f of forms) {
    let at = view.chars.indexOf(f);
    while (at >= 0) {
      const r = [view.from[at], view.to[at + f.length - 1]];
      // A base64 match: the blob around it goes too (its first and last characters mix in the secret's bytes).
      ranges.push(plain.has(f) ? r : wholeBlob(s, r));
      at = view.chars.indexOf(f, at + f.length);
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  return merged;
}

/**
 * Text with every known secret masked, in whatever form it is written.
 * @param {string} text
 * @param {string[]} values the secrets
 * @param {string|((value: string) => string)} replacement
 */
export function maskSecrets(text, values, replacement) {
  const s = String(text ?? '');
  const ranges = secretRanges(s, values);
  if (!ranges.length) return s;
  const stand = typeof replacement === 'function' ? replacement : () => replacement;
  let out = '';
  let last = 0;
  for (const [a, b] of ranges) {
    out += s.slice(last, a) + stand(s.slice(a, b));
    last = b;
  }
  return out + s.slice(last);
}

/**
 * How much of streamed text may be shown now: all of it but a tail that may
 * be the start of a secret still arriving (its first characters, in any form
 * above, or an escape cut in half). Mask what is shown with maskSecrets.
 * @param {string} text the text so far
 * @param {string[]} values
 * @returns {number} the length of the prefix that is safe to show
 */
export function streamSafeLength(text, values) {
  const s = String(text ?? '');
  const forms = values.flatMap(secretForms);
  if (!forms.length) return s.length;
  // A cut escape (\, \u00, %4, &#12) is held back whatever it spells.
  const cut = /(\\(u[0-9a-fA-F]{0,3}|x[0-9a-fA-F]?)?|%[0-9a-fA-F]?|&#x?[0-9a-fA-F]{0,6})$/.exec(s);
  let safe = cut ? cut.index : s.length;
  // Only the end can begin a secret: the view of its last characters (an escape spells one in at most 11).
  const start = Math.max(0, safe - 16 * Math.max(...forms.map((f) => f.length)));
  const view = decodedView(s.slice(start, safe));
  view.from = view.from.map((x) => x + start);
  // The longest end of the view that begins a form is held back, from where its first character came.
  for (let k = Math.min(view.chars.length, Math.max(...forms.map((f) => f.length)) - 1); k >= 1; k--) {
    const tail = view.chars.slice(view.chars.length - k);
    if (forms.some((f) => f.startsWith(tail))) {
      safe = Math.min(safe, view.from[view.chars.length - k]);
      break;
    }
  }
  return safe;
}
