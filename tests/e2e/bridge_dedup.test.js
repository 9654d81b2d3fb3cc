// Every new call runs once: the chat bridge knows a message by its element
// and its conversation, not by its position and text. On the textarea chat
// and on the contenteditable chat (one origin each): the same call in a second
// conversation runs; the same call twice in a row runs twice and the third
// stops; a reload runs nothing again; a site that writes each reply over its
// one message element (a new element, or the same one) runs every reply.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { FIXTURES, serve } from './lib/server.js';
import { ackCount, armedIn, armFromOptions, judged, judgedUpTo, waitForSent } from './lib/bridge.js';

const SETTLE = 300;

// The chat page also answers at conversation paths, so a reload of one works.
const page = { body: fs.readFileSync(path.join(FIXTURES, 'chat.html'), 'utf8') };
const routes = Object.fromEntries(['a', 'b', 'c', 'one'].map((c) => [`/conv/${c}`, page]));

const VARIANTS = [
  { name: 'textarea chat', query: '', destination: '#prompt', bytes: 101 },
  { name: 'contenteditable chat', query: 'variant=ce', destination: '#editor', bytes: 102 },
];

let env;
const sites = [];

before(async () => {
  for (let i = 0; i < VARIANTS.length; i++) sites.push(await serve({ routes }));
  const allowed = ['computer.screenshot'];
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], policy: { origins: Object.fromEntries(sites.map((s) => [s.origin, allowed])) } });
});

after(async () => {
  await env?.close();
  for (const s of sites) await s.close();
});

VARIANTS.forEach((v, i) => {
  describe(v.name, () => {
    const call = JSON.stringify({ capability: 'computer.screenshot', arguments: { bytes: v.bytes } });
    const shots = () => env.calls().filter((c) => c.tool === 'screenshot' && c.arguments.bytes === v.bytes).length;
    const url = (conv, extra = '') => sites[i].url(`/conv/${conv}?${[v.query, 'history=h', extra].filter(Boolean).join('&')}`);
    const stream = (chat, opts) => chat.evaluate(([c, o]) => window.chat.stream(c, o), [call, opts || {}]);
    let chat;
    let options;

    before(async () => {
      chat = await env.newPage(url('a'));
      options = await armFromOptions(env, { source: '.assistant', destination: v.destination, autoSend: true, sendButton: '#send', debounceMs: SETTLE });
    });

    test('the same call in a second conversation on the same origin runs', async () => {
      await stream(chat);
      await waitFor(() => shots() === 1, { what: 'call in the first conversation' });
      await waitForSent(chat, 1);
      await chat.evaluate(() => window.chat.newConversation('/conv/b'));
      await stream(chat);
      await waitFor(() => shots() === 2, { what: 'the same call in the second conversation' });
      const replies = await waitForSent(chat, 2);
      // The result's JSON, then the line saying its image (the fake Munim's bytes, no picture) was not attached.
      assert.equal(JSON.parse(replies[1].split('\n\n')[0]).ok, true);
    });

    test('the same call twice in a row runs twice; the third identical one stops the bridge', async () => {
      await chat.evaluate(() => window.chat.newConversation('/conv/c'));
      await stream(chat);
      await waitFor(() => shots() === 3, { what: 'first call' });
      await waitForSent(chat, 3);
      await stream(chat);
      await waitFor(() => shots() === 4, { what: 'the same call again' });
      await waitForSent(chat, 4);
      await stream(chat);
      // The notice of the stop (the one before it said the screenshot's image was not attached).
      await waitFor(async () => /same call computer\.screenshot 3 times/.test(await chat.locator('gnosis-notice [role=alert]').textContent().catch(() => '')), { what: 'notice' });
      await waitFor(async () => (await options.locator('#armed-state').textContent()) === 'Stopped', { what: 'stopped' });
      assert.equal(shots(), 4);
    });

    test('a reload of the conversation runs none of its calls again; a new identical call runs', async () => {
      await options.getByRole('button', { name: 'Start', exact: true }).click();
      await waitFor(async () => (await options.locator('#armed-state').textContent())?.startsWith('Armed'), { what: 'armed' });
      const after = await ackCount(env, sites[i].origin);
      await chat.reload();
      await chat.waitForFunction(() => document.querySelectorAll('.assistant').length === 3);
      assert.equal(new URL(chat.url()).pathname, '/conv/c');
      assert.equal((await judged(env, sites[i].origin, { after, index: 3 })).action, 'none', 'the reloaded call was judged, not run');
      assert.equal(shots(), 4, 'nothing ran again after the reload');
      await stream(chat);
      await waitFor(() => shots() === 5, { what: 'a new call after the reload' });
    });

    test('a site that writes every reply over its one message element runs each reply', async () => {
      const single = await env.newPage(url('one', 'single=replace'));
      await armedIn(env, single);
      await stream(single);
      await waitFor(() => shots() === 6, { what: 'first reply' });
      await waitForSent(single, 1);
      await stream(single); // a new element in place of the old one
      await waitFor(() => shots() === 7, { what: 'the reply that replaced the element' });
      await waitForSent(single, 2);
      assert.equal(await single.locator('.assistant').count(), 1);
      // A message from the person, then a reply written over the same element.
      await single.locator(v.destination).pressSequentially('go on');
      await single.locator('#send').click();
      await waitForSent(single, 3);
      await stream(single, { inPlace: 'reuse' });
      await waitFor(() => shots() === 8, { what: 'the reply written over the same element' });
      await waitForSent(single, 4);
      await judgedUpTo(env, sites[i].origin, single);
      assert.equal(shots(), 8, 'each reply ran once');
      await single.close();
    });
  });
});
