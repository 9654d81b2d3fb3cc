// The capability prompt follows what the site may run: the host's decisions
// for the origin (allowed tools listed, ask-each-time ones marked, blocked and
// undecided ones left out), and with "Insert the capability prompt when
// starting" Start writes it into the chat input without sending it. On a site
// the host knows nothing of yet, the prompt lists what the table shows before
// Start (not "Tools (0)"), follows each change made in it, and Start keeps it
// (the section pictured at 360, 400 and 480 px: bridge_prompt_<width>.png).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, sent } from './lib/bridge.js';

let site;
let fresh; // a second origin (another port), with no entry in the host's policy
let env;

before(async () => {
  site = await serve();
  fresh = await serve();
  env = await launch({
    grantOrigins: ['http://127.0.0.1/*'],
    policy: { origins: { [site.origin]: { allow: ['computer.screenshot', 'computer.echo'], ask: ['computer.click'], deny: ['computer.type_text'] } } },
  });
});

after(async () => {
  await env?.close();
  await site?.close();
  await fresh?.close();
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
  await waitFor(async () => (await options.locator('#prompt-state').textContent()) === 'Inserted into the page, not sent. It lists 3 tools, 1 of them asks each time, as chosen above.', { what: 'inserted note' });
  assert.deepEqual(await sent(chat), [], 'the prompt is left for the person to send');

  // The choice is kept with the site's settings.
  await options.reload();
  await options.locator('body[data-ready]').waitFor();
  assert.equal(await options.getByLabel('Insert the capability prompt when starting', { exact: true }).isChecked(), true);
  await options.close();
  await chat.close();
});

const toolsOf = (text) => Number(/Tools \((\d+)\):/.exec(text)?.[1]);

test('on a site the host has no grants for, the prompt lists what the table shows before Start, follows its changes and stays after Start', async () => {
  const chat = await env.newPage(fresh.url('/chat.html'));
  const options = await env.openOptions();
  await options.locator('body[data-ready]').waitFor();
  assert.equal(await options.locator('#current-origin').textContent(), fresh.origin);
  await waitFor(async () => (await options.locator('#grants-state').textContent()).startsWith('Suggested choices'), { what: 'suggested choices' });
  const rows = await options.locator('#grants-list li.grant:not(.unavailable)').count();
  assert.ok(rows > 4, `the table lists the host's tools (${rows})`);
  const blockedInTable = await options.locator('#grants-list li.grant:not(.unavailable) input[value="deny"]:checked').count();

  await options.getByRole('button', { name: 'Show prompt' }).click();
  const box = options.getByRole('textbox', { name: 'Capability prompt' });
  await waitFor(async () => (await box.inputValue()).includes('Tools ('), { what: 'prompt shown' });
  const before = await box.inputValue();
  assert.equal(toolsOf(before), rows - blockedInTable, 'the prompt lists what the table allows or asks for, before Start');
  assert.match(await options.locator('#prompt-state').textContent(), new RegExp(`^It lists ${rows - blockedInTable} tools, \\d+ of them ask each time, as chosen above\\.$`));

  // A tool blocked in the table leaves the prompt shown at once; Allow takes away its "asks" mark.
  const radio = (name, label) => options.getByRole('radiogroup', { name }).getByRole('radio', { name: label, exact: true });
  await radio('computer.click', 'Block').check();
  await waitFor(async () => !(await box.inputValue()).includes('"computer.click"'), { what: 'the prompt without computer.click' });
  assert.equal(toolsOf(await box.inputValue()), rows - blockedInTable - 1);
  await radio('computer.type_text', 'Allow').check();
  await waitFor(async () => /^"computer\.type_text"(?![^\n]*asks the user)/m.test(await box.inputValue()), { what: 'computer.type_text allowed in the prompt' });
  // The section as it then reads (bridge_prompt_<width>.png).
  for (const width of [360, 400, 480]) {
    await options.setViewportSize({ width, height: 900 });
    const o = await options.evaluate(() => ({ scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth }));
    assert.ok(o.scroll <= o.client, `the options page at ${width} px overflows sideways`);
    await env.screenshot(options.locator('#prompt'), `bridge_prompt_${width}`);
  }

  // Insert into page, before Start: the same prompt goes into the chat input, unsent.
  const into = options.getByLabel('Inject into', { exact: true });
  await into.fill('#prompt');
  await into.dispatchEvent('change');
  await options.getByRole('button', { name: 'Insert into page' }).click();
  await waitFor(async () => (await chat.evaluate(() => window.chat.input())).includes('Tools ('), { what: 'prompt inserted' });
  const inserted = await chat.evaluate(() => window.chat.input());
  assert.equal(toolsOf(inserted), rows - blockedInTable - 1);
  assert.doesNotMatch(inserted, /"computer\.click"/);
  // The chat holds the prompt before the page hears back from the worker.
  await waitFor(async () => (await options.locator('#prompt-state').textContent()).startsWith('Inserted'), { what: 'the inserted note' });
  assert.match(await options.locator('#prompt-state').textContent(), /^Inserted into the page, not sent\. It lists \d+ tools/);
  assert.deepEqual(await sent(chat), []);

  // Start saves the table's choices; the prompt built from the host now is the same.
  await armFromOptions(env, { source: '.assistant', destination: '#prompt' }, { options });
  await options.getByRole('button', { name: 'Show prompt' }).click();
  await waitFor(async () => (await options.locator('#prompt-state').textContent()).startsWith('It lists'), { what: 'prompt rebuilt' });
  assert.equal(await box.inputValue(), inserted, 'after Start the prompt is the one inserted before it');
  // What the host saved is what the prompt was built from.
  await options.reload();
  await options.locator('body[data-ready]').waitFor();
  await waitFor(async () => (await options.locator('#grants-state').textContent()).startsWith('Saved in the host'), { what: 'grants read back' });
  assert.equal(await radio('computer.click', 'Block').isChecked(), true);
  assert.equal(await radio('computer.type_text', 'Allow').isChecked(), true);
  await options.close();
  await chat.close();
});
