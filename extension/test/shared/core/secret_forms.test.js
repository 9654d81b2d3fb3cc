// A known secret is found in every form it may be written in, and a stream
// never shows a piece of it while the rest is still arriving (issue 38 item
// 6: the agent's key \u-escaped in a plain-text 401, in base64, and cut
// across two streamed chunks).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64Cores, decodedView, maskSecrets, secretRanges, streamSafeLength } from '../../../shared/core/secret_forms.js';
import { maskKey, maskKeyStreaming, maskedKey } from '../../../agent/core/server_text.js';

const KEY = 'sk-proj-Q7wErTy9uIoP1aSdFgHjKl';
const inner = (k) => Array.from({ length: k.length - 10 }, (_, i) => k.slice(3 + i, 7 + i)); // 4-letter pieces the mask never shows

test('the decoded view spells escapes, encodings and references as their characters, and skips white space', () => {
  const v = decodedView('a\\u0062%63&#100;&#x65;\\x66\\"\\\\ \n\\ng');
  assert.equal(v.chars, 'abcdef"\\g');
  assert.deepEqual([v.from[1], v.to[1]], [1, 7]);
});

test('base64 cores: found at every alignment, in both alphabets', () => {
  for (const pre of ['', 'x', 'xy', 'xyz']) {
    const b64 = Buffer.from(pre + KEY).toString('base64');
    assert.ok(base64Cores(KEY).some((c) => b64.includes(c)), `after ${JSON.stringify(pre)}`);
    const url = Buffer.from(pre + KEY).toString('base64url');
    assert.ok(base64Cores(KEY).some((c) => url.includes(c)), `url-safe after ${JSON.stringify(pre)}`);
  }
});

test('ranges cover exactly what spelled the secret; a base64 blob goes whole', () => {
  const text = `a ${KEY} b`;
  assert.deepEqual(secretRanges(text, [KEY]), [[2, 2 + KEY.length]]);
  const blob = Buffer.from(`id=${KEY};`).toString('base64');
  assert.equal(maskSecrets(`x ${blob} y`, [KEY], '#'), 'x # y');
  assert.equal(maskSecrets('nothing here', [KEY], '#'), 'nothing here');
  assert.equal(maskSecrets('abc', ['ab'], '#'), 'abc', 'a secret under 4 characters is not looked for');
});

test('the agent\'s key: \\u-escaped in a plain-text 401, base64, split by a line break', () => {
  const escaped = [...KEY].map((c, i) => (i % 3 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)).join('');
  for (const text of [`401 invalid key ${escaped}`, `401 ${Buffer.from(KEY).toString('base64')}`, `401 ${KEY.slice(0, 10)}\n${KEY.slice(10)}`]) {
    const out = maskKey(text, KEY, { error: true });
    for (const piece of inner(KEY)) assert.ok(!out.includes(piece), `${piece} in ${out}`);
  }
});

test('a stream cut anywhere never shows a piece of the key, and shows it masked once whole', () => {
  const forms = [KEY, JSON.stringify(KEY).slice(1, -1), [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')];
  for (const form of forms) {
    const full = `the key ${form} works`;
    for (let i = 1; i < full.length; i++) {
      for (const j of [i, Math.min(full.length, i + 7)]) {
        for (const cut of [i, j]) {
          const shown = maskKeyStreaming(full.slice(0, cut), KEY);
          for (const piece of inner(KEY)) assert.ok(!shown.includes(piece), `cut at ${cut}: ${shown}`);
          assert.ok(full.startsWith(shown.split(maskedKey(KEY))[0]), 'what shows is the text so far');
        }
      }
    }
    // Whole, it shows masked (the model client adds what a stream held back once the reply ends).
    assert.equal(maskKey(full, KEY), `the key ${maskedKey(KEY)} works`);
    assert.ok(maskKey(full, KEY).startsWith(maskKeyStreaming(full, KEY)));
  }
  assert.equal(streamSafeLength('no secret here', []), 14);
  assert.equal(streamSafeLength('cut escape \\u00', [KEY]), 11);
});
