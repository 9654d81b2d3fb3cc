// Text from a model server as the agent shows and keeps it (issue 29 item
// 7): an HTML error page becomes its words; the configured key, echoed back,
// is masked in errors, replies, streamed text and Test connection alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorDetail, looksLikeMarkup, markupToText, maskKey, maskedKey } from '../../../agent/core/server_text.js';
import { createModelClient } from '../../../agent/core/model_client.js';

const KEY = 'sk-proj-Q7wErTy9uIoP1aSdFgHjKl';
const NGINX = '<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n';
const LOGIN = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign in &middot; Gateway</title>
<style>body{font:14px sans-serif}</style><script>window.x = "<b>not text</b>";</script></head>
<body><!-- a comment --><div class="box"><h2>Your session expired</h2><p>Please sign in again &amp; retry.</p><a href="/login">Sign in</a></div></body></html>`;

test('an HTML error page becomes its words: title and body text, no tags, scripts, styles or comments', () => {
  assert.equal(looksLikeMarkup(NGINX), true);
  assert.equal(looksLikeMarkup(LOGIN), true);
  assert.equal(looksLikeMarkup('{"error":{"message":"bad key"}}'), false);
  assert.equal(looksLikeMarkup('a < b and c > d'), false);
  assert.equal(markupToText(NGINX), '401 Authorization Required nginx/1.25.3');
  const login = markupToText(LOGIN);
  assert.equal(login, 'Sign in · Gateway: Your session expired Please sign in again & retry. Sign in');
  assert.doesNotMatch(login, /[<>]|font:|window\.x|comment/);
  assert.equal(errorDetail(NGINX), '401 Authorization Required nginx/1.25.3');
  assert.equal(errorDetail('<html><body></body></html>'), '(an HTML page without text)');
  assert.equal(errorDetail(JSON.stringify({ error: { message: '<p>Invalid <b>key</b></p>' } })), 'Invalid key');
  assert.equal(errorDetail(''), '(empty body)');
  assert.equal(errorDetail('x'.repeat(1000)).length, 300);
});

test('the key is masked as typed, URL-encoded and JSON-escaped; short keys only in errors', () => {
  assert.equal(maskedKey(KEY), 'sk-…HjKl');
  assert.equal(maskedKey('short-key-123'), '••••••');
  const echoed = `Incorrect API key provided: ${KEY}. See ?key=${encodeURIComponent(KEY)}`;
  const masked = maskKey(echoed, KEY);
  assert.ok(!masked.includes(KEY) && !masked.includes(KEY.slice(3, -4)), masked);
  assert.equal(masked, `Incorrect API key provided: ${maskedKey(KEY)}. See ?key=${maskedKey(KEY)}`);
  const odd = 'ab/c"d+e=f g';
  assert.equal(maskKey(`k=${encodeURIComponent(odd)} j="${JSON.stringify(odd).slice(1, -1)}"`, odd).includes('ab'), false);
  assert.equal(maskKey('the word ollama stays', 'ollama'), 'the word ollama stays', 'short key: replies untouched');
  assert.equal(maskKey('bad key ollama', 'ollama', { error: true }), 'bad key ••••••');
  assert.equal(maskKey('anything', ''), 'anything');
  assert.ok(!errorDetail(JSON.stringify({ error: { message: `${'x'.repeat(290)} ${KEY}` } }), KEY).includes(KEY.slice(0, 10)), 'masked before it is cut');
});

/** A fetch that answers each request with the next reply. */
function fetchOf(...replies) {
  return async () => {
    const r = replies.shift();
    return new Response(r.body, { status: r.status || 200, headers: { 'content-type': r.type || 'application/json' } });
  };
}
const REQ = { endpoint: 'https://api.example/v1/chat/completions', apiKey: KEY, model: 'm', messages: [], retryBaseMs: 1, retryMaxMs: 1 };

test('the model client: a 401 HTML page is text, and the echoed key is masked in the error, the reply and each delta', async () => {
  const html = createModelClient({ fetch: fetchOf({ status: 401, type: 'text/html', body: NGINX }) });
  await assert.rejects(html.complete(REQ), (err) => {
    assert.equal(err.code, 'http_401');
    assert.match(err.message, /HTTP 401 .*: 401 Authorization Required nginx\/1\.25\.3$/);
    assert.doesNotMatch(err.message, /<|>/);
    return true;
  });
  const echo = createModelClient({ fetch: fetchOf({ status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }) }) });
  await assert.rejects(echo.complete(REQ), (err) => !err.message.includes(KEY) && err.message.includes(maskedKey(KEY)));
  const sse = [`data: ${JSON.stringify({ choices: [{ delta: { content: `your key ${KEY.slice(0, 12)}` } }] })}\n\n`,
    `data: ${JSON.stringify({ choices: [{ delta: { content: `${KEY.slice(12)} works` } }] })}\n\n`, 'data: [DONE]\n\n'].join('');
  const deltas = [];
  const streamed = createModelClient({ fetch: fetchOf({ type: 'text/event-stream', body: sse }) });
  const r = await streamed.complete(REQ, { onDelta: (piece, full) => deltas.push(full) });
  assert.equal(r.content, `your key ${maskedKey(KEY)} works`);
  assert.equal(deltas.at(-1), r.content);
  // The key came cut across the two chunks: no delta ever showed a piece of it.
  for (const d of deltas) assert.ok(!d.includes(KEY.slice(0, 8)) && !d.includes(KEY.slice(8, 12)), `a delta showed part of the key: ${d}`);
  const tc = createModelClient({ fetch: fetchOf({ status: 401, type: 'text/html', body: `<html><title>Denied</title><p>key ${KEY} refused</p></html>` }) });
  const t = await tc.testConnection({ ...REQ, attempts: 1 });
  assert.equal(t.ok, false);
  assert.match(t.text, /HTTP 401 .*Denied: key sk-….{4} refused/);
  assert.ok(!t.text.includes(KEY));
});
