// The capability prompt follows what the site may run: the host's decisions
// for the origin (allowed tools listed, ask-each-time ones marked, blocked and
// undecided ones left out), and with "Insert the capability prompt when
// starting" Start writes it into the chat input without sending it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, sent } from './lib/bridge.js';

let site;
let env;

before(async () => {
  site = await serve();
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'],
    policy: { origins: { [site.origin]: { allow: ['computer.screenshot', 'computer.echo'], ask: ['computer.click'], deny: ['computer.type_text'] } } },
  });
});

after(async () => {
  await env?.close();
  await site?.close();
});

function checkPrompt(text) {
  assert.match(text, /^"computer\.screenshot"(?![^\n]*asks the user)/m);
  assert.match(text, /^"computer\.echo"(?![^\n]*asks the user)/m);
  assert.match(text, /^"computer\.click"[^\n]*\[asks the user each time\]/m);
  assert.doesNotMatch(text, /computer\.type_text/, 'denied');
  assert.doesNotMatch(text, /computer\.drag|computer\.scroll/, 'not granted');
  assert.match(text, /Tools \(3\):/);
}

test('the prompt lists what the site may run, ask-each-time tools marked, blocked ones left out', async () => {
  const chat = await env.newPage(site.url('/chat.html'));
  const options = await env.openOptions();
  await options.locator('body[data-ready]').waitFor();
  await options.getByRole('button', { name: 'Show prompt' }).click();
  const box = options.getByRole('textbox', { name: 'Capability prompt' });
  await waitFor(async () => (await box.inputValue()).includes('Tools ('), { what: 'prompt shown' });
  checkPrompt(await box.inputValue());
  await options.close();
  await chat.close();
});

test('"Insert the capability prompt when starting" writes that prompt into the chat input on Start, unsent', async () => {
  const chat = await env.newPage(site.url('/chat.html'));
  const options = await env.openOptions();
  await options.locator('body[data-ready]').waitFor();
  const insert = options.getByLabel('Insert the capability prompt when starting', { exact: true });
  await insert.check();
  await armFromOptions(env, { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300 }, { options });
  await waitFor(async () => (await chat.evaluate(() => window.chat.input())).includes('Tools ('), { what: 'prompt inserted' });
  checkPrompt(await chat.evaluate(() => window.chat.input()));
  await waitFor(async () => (await options.locator('#prompt-state').textContent()) === 'Inserted into the page.', { what: 'inserted note' });
  assert.deepEqual(await sent(chat), [], 'the prompt is left for the person to send');

  // The choice is kept with the site's settings.
  await options.reload();
  await options.locator('body[data-ready]').waitFor();
  assert.equal(await options.getByLabel('Insert the capability prompt when starting', { exact: true }).isChecked(), true);
  await options.close();
  await chat.close();
});
