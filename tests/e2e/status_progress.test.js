// A long tool call tells the person how far it is: the fake Munim's progress
// tool reports five steps while the real host runs it for an armed chat page,
// and while it runs the tab's toolbar badge shows the percentage (its title the
// whole progress line) and the options page's Last line reads
// "running computer.progress — NN% · working n"; then the result is injected
// and sent as usual. Every wait is for something the page or the badge shows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, badgeText, sent, waitForSent } from './lib/bridge.js';

let site;
let env;
before(async () => {
  site = await serve();
  // sites: the host's policy lets this origin run every computer.* capability.
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

/** The toolbar badge's title for the tab showing url. */
function badgeTitle(url) {
  return env.evalInWorker(async (u) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === u);
    return chrome.action.getTitle({ tabId: tab.id });
  }, url);
}

test("a call's progress shows as a percentage on the tab's badge and in the options page's Last line while it runs; then its result is injected", async () => {
  const url = site.url('/chat.html?progress');
  const chat = await env.newPage(url);
  const options = await armFromOptions(env, { source: '.assistant', destination: '.composer', autoSend: true, sendButton: '#send', debounceMs: 300 });
  assert.equal(await options.locator('#current-origin').textContent(), site.origin);
  // Everything the Last line shows from now on, in order (it changes faster than a poll may look).
  await options.evaluate(() => {
    const el = document.getElementById('last-event');
    window.lastLines = [];
    new MutationObserver(() => window.lastLines.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
  });

  await chat.evaluate(() => window.chat.stream('{"capability":"computer.progress","arguments":{"steps":5,"delay_ms":400,"message":"working"}}'));

  // While the call runs (a step short of the end, 400 ms before the next report), the badge shows how far it is.
  const pct = await waitFor(async () => {
    const t = await badgeText(env, url);
    return /^(20|40|60|80)%$/.test(t) && t;
  }, { what: 'a percentage on the badge', timeoutMs: 15_000 });
  assert.deepEqual(await sent(chat), [], `the badge showed ${pct} before the result was sent`);
  assert.match(await badgeTitle(url), /^Gnosis: running computer\.progress — \d{1,3}% · working [1-5]$/);

  // The options page's Last line says the same while it runs.
  const line = await waitFor(async () => {
    const t = await options.locator('#last-event').textContent();
    return /running computer\.progress/.test(t) && t;
  }, { what: 'the progress line on the options page', timeoutMs: 10_000 });
  assert.match(line, /^Last: running computer\.progress — (20|40|60|80|100)% · working [1-5] at /);

  // Then the call ends: its result is injected and sent, and the badge is back to ON.
  const [reply] = await waitForSent(chat, 1, 15_000);
  const parsed = JSON.parse(reply);
  assert.equal(parsed.ok, true, reply);
  assert.equal(parsed.capability, 'computer.progress');
  assert.deepEqual(parsed.result.content, [{ type: 'text', text: 'done 5 steps' }], 'the provider got a progress token and ran all five steps');
  await waitFor(async () => (await badgeText(env, url)) === 'ON', { what: 'the badge back to ON' });
  const lines = await options.evaluate(() => window.lastLines);
  const progress = lines.filter((l) => /running computer\.progress/.test(l));
  assert.ok(progress.length >= 1, `the Last line showed the progress: ${JSON.stringify(lines)}`);
  assert.ok(progress.every((l) => /^Last: running computer\.progress — (20|40|60|80|100)% · working [1-5] at /.test(l)), JSON.stringify(progress));
  await chat.close();
  await options.close();
});
