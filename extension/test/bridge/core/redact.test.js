// The activity log redacts as the host's debug log does: the cases of
// runtime/testdata/redact_table.json, which runtime/redact_table_test.go runs
// against the Go code, give the same text here; and a planted secret never
// comes out, whatever field or text carries it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { KEY_PREFIXES, MAX_REDACTED_BYTES, nameWords, redactJSON, redactRaw, redactText, truncate, utf8Length } from '../../../bridge/core/redact.js';

const table = JSON.parse(fs.readFileSync(new URL('../../../../runtime/testdata/redact_table.json', import.meta.url), 'utf8'));

test('the shared table: raw JSON and text redact to the host\'s text', () => {
  const ran = table.json.filter((c) => !c.goOnly);
  assert.ok(ran.length >= 15 && table.text.length >= 10, 'the table was read');
  for (const c of ran) assert.equal(redactRaw(c.in), c.want, c.name);
  for (const c of table.text) assert.equal(redactText(c.in), c.want, c.in);
});

test('the key prefixes are the host\'s (runtime/keyprefix/prefixes.txt), in its order', () => {
  const text = fs.readFileSync(new URL('../../../../runtime/keyprefix/prefixes.txt', import.meta.url), 'utf8');
  const host = text.split('\n').map((l) => l.split('#')[0].trim()).filter(Boolean);
  assert.ok(host.length >= 40, 'the file was read');
  assert.deepEqual(KEY_PREFIXES, host);
});

test('a value redacts like its JSON text', () => {
  for (const c of table.json.filter((x) => !x.goOnly)) {
    let value;
    try { value = JSON.parse(c.in); } catch { continue; }
    assert.equal(redactJSON(value), c.want, c.name);
  }
  assert.equal(redactJSON(undefined), '{}');
});

test('names split into words the way the host splits them', () => {
  assert.deepEqual(nameWords('X-Api-Key'), ['x', 'api', 'key']);
  assert.deepEqual(nameWords('APIKey'), ['api', 'key']);
  assert.deepEqual(nameWords('oauth2Token'), ['oauth2', 'token']);
  assert.deepEqual(nameWords('Ünïcode-Wörd'), ['ünïcode', 'wörd']);
  assert.deepEqual(nameWords(''), []);
});

test('cutting counts UTF-8 bytes and never splits a character', () => {
  assert.equal(truncate('abc', 3), 'abc');
  assert.equal(truncate('abcd', 3), 'abc…');
  assert.equal(truncate('éé', 3), 'é…');
  assert.equal(truncate('😀x', 2), '…');
  assert.equal(utf8Length('é😀'), 6);
});

test('UTF-8 length is what TextEncoder writes, lone surrogates as U+FFFD', () => {
  const cases = ['', 'abc', '\u007f\u0080', '\u07ff\u0800', '\uffff', 'é😀', '𝄞x', '\ud800', '\udc00x', 'a\ud83d', '\ud83d\ude00\ud83d', '\ude00\ud83d'];
  for (const s of cases) assert.equal(utf8Length(s), new TextEncoder().encode(s).length, JSON.stringify(s));
});

test('the output is bounded and valid JSON, and a value over 1 MiB is only counted', () => {
  const out = redactJSON({ list: Array.from({ length: 5000 }, () => 'v'.repeat(100)) });
  assert.ok(out.length <= 2 * MAX_REDACTED_BYTES, `${out.length} characters`);
  assert.match(JSON.parse(out).list.at(-1), /^… \d+ more$/);
  assert.equal(redactJSON({ image: 'A'.repeat(1 << 20) }), '"(1048588 bytes, not shown)"');
});

test('a planted secret never comes out, in any field or text that names it', () => {
  const names = ['password', 'Api-Key', 'clientSecret', 'AUTHORIZATION', 'session_cookie', 'apikey', 'key', 'refresh_token'];
  for (let i = 0; i < 200; i++) {
    const secret = `S${Math.random().toString(36).slice(2, 12)}9${i}`;
    const name = names[i % names.length];
    const texts = [`Bearer ${secret}`, `sk-${secret}`, `https://x.example/p?a=1&${name}=${secret}&b=2`, `${name}: ${secret}`];
    const text = texts[i % texts.length];
    for (const v of [{ [name]: secret }, { a: { b: [{ [name]: secret }] } }, { [name]: { inner: secret } }, { text: `see ${text} here` }, text]) {
      assert.ok(!redactJSON(v).includes(secret), JSON.stringify(v));
    }
    assert.ok(!redactRaw(text).includes(secret), text);
  }
});
