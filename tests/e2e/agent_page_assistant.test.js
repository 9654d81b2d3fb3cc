// The Page Assistant end to end: the toggle in the Side Panel (opened as a
// tab), the bar on a 127.0.0.1 page (an extension frame inside a closed
// shadow root that the page's CSS and scripts cannot reach), a task typed there
// played by the scripted model (click + Finished; CallUser answered from the
// page), Stop from the page, the panel's validation message on the page, the
// bar leaving while no panel is open in the window, and a hostile page
// (fixtures/page_assistant_hostile.html) that listens to every key, rewrites
// the focused input with execCommand on Enter, fires script-made events, lays
// an overlay over the bar and reaches for it, and gets none of it.
//
// The bar's content lives in its frame, which Playwright reaches (page.frames())
// and page scripts do not; the host and the iframe's box are read through the
// page's own CDP session (DOM.getDocument with pierce exposes closed roots).
// Clicks and keys are real input, as a user's. Screenshots of the bar go to
// GNOSIS_E2E_SHOTS (default: gnosis-e2e-shots under the system's temp dir).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, waitFor, EXTENSION_ID, EXTENSION_ORIGIN } from './lib/harness.js';
import { PAGE_ASSISTANT_EVENT } from '../../extension/shared/core/messages.js';
import { serve } from './lib/server.js';
import { startModelServer, textOf, viewportOf, normalise } from './lib/model_server.js';
import { centerOf, openPanelAndTarget, storeSettings, debuggerFree } from './lib/agent_fixture.js';
import { FRAME_URL, bar, enableToggle, focusInBar, frameOf, inScheme, shoot, submitOnPage, uncoveredLongEnough } from './lib/page_assistant.js';

// Hostile page CSS: if any of it reached the bar, its input would be 40px red on yellow.
const PAGE_HTML = `<!doctype html>
<html><head><title>Assistant target</title><style>
* { font-size: 40px !important; color: red !important; background: yellow !important; }
input, button, form, div { border: 9px solid red !important; padding: 20px !important; }
gnosis-page-assistant, [style] { display: none !important; }
#go { position: absolute; left: 60px; top: 60px; width: 200px; height: 60px; }
#next { position: absolute; left: 60px; top: 200px; width: 300px; height: 60px; display: block; }
</style></head><body>
<button id="go">Press me</button>
<a id="next" href="/assistant.html?navigated">Next page</a>
<script>
window.events = [];
document.getElementById('go').addEventListener('click', (e) => window.events.push('go:' + e.isTrusted));
</script></body></html>`;

let env;
let site;
before(async () => {
  site = await serve({ routes: { '/assistant.html': { body: PAGE_HTML } } });
  // The toggle needs host access to every http/https page; permission prompts never settle in
  // automation, so the grant is seeded (the toggle then finds it with permissions.contains).
  // Chromium discards input to a cross-origin frame that moved in the last moment (a screenshot or a
  // colour scheme change re-lays the page out); the bar's own guard (uncovered for MIN_SHOWN_MS) is
  // what these tests check, so that browser feature is off and the clicks need no pause.
  env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*', 'http://*/*', 'https://*/*'], args: ['--disable-features=DiscardInputEventsToRecentlyMovedFrames'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

const fast = { maxSteps: 10, temperature: 0.5, requestTimeoutMs: 60000, retryBaseMs: 20, retryMaxMs: 300 };
const act = (think, action) => ({ content: `<think>${think}</think>\n<action>${action}</action>` });

/** Opens the panel and a page (page?query), with the scripted model when script is given; close() ends it all. */
async function setup(query, script, { page = '/assistant.html' } = {}) {
  const targetUrl = site.url(`${page}?${query}`);
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const cdp = await target.context().newCDPSession(target);
  const model = script ? await startModelServer(script) : null;
  if (model) await storeSettings(panel, { ...fast, apiUrl: model.url, model: 'venus-test' });
  await target.bringToFront();
  const close = async () => {
    await model?.close();
    await panel.close().catch(() => {});
    await target.close().catch(() => {});
  };
  return { targetUrl, panel, target, cdp, model, close };
}

test('a task typed in the page bar runs like the panel\'s: streamed step summary, Stop, result card, input back; the bar hides while the panel is closed', async () => {
  let release;
  const gate = new Promise((r) => { release = r; });
  let target;
  const steps = [
    async ({ body }) => {
      const c = await centerOf(target, '#go');
      const [x, y] = normalise(c.x, c.y, viewportOf(body));
      return act('The page has one button labelled Press me; pressing it is what the user asked for.', `Click(point=(${x},${y}))`);
    },
    async () => { await gate; return act('The button was pressed.', "Finished(content='pressed the button')"); },
  ];
  const s = await setup('main', ({ n, body }) => steps[n - 1]?.({ body }) ?? { status: 400, body: 'unexpected' });
  target = s.target;
  const { panel, cdp, model, targetUrl } = s;
  try {
    assert.equal(await bar(target, cdp), null, 'no bar before the toggle is on');
    await enableToggle(panel);
    // Injected into the already open page, inside a closed shadow root the page's CSS and scripts cannot reach.
    const b0 = await waitFor(async () => { const b = await bar(target, cdp); return b?.visible && b; }, { what: 'the bar on the open page' });
    assert.equal(b0.shadowType, 'closed');
    assert.equal(b0.input.fontSize, '13px', 'the design system\'s type scale, not the page\'s 40px');
    assert.notEqual(b0.input.color, 'rgb(255, 0, 0)');
    assert.deepEqual(await target.evaluate(() => ({
      shadowRoot: document.querySelector('gnosis-page-assistant').shadowRoot,
      globals: Object.keys(window).filter((k) => /gnosis/i.test(k)),
    })), { shadowRoot: null, globals: [] });
    // Visible is not in control: nothing is attached until a task is submitted.
    assert.equal(await debuggerFree(env, targetUrl), true);

    // Poll the bar while the task runs to see the step summary stream past.
    const seen = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const b = await bar(target, cdp).catch(() => null);
        if (b) seen.push(b);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    await submitOnPage(target, cdp, 'Press the button on this page');
    await waitFor(() => model.requests.length === 2, { what: 'the second model request' });
    const running = await waitFor(async () => { const b = await bar(target, cdp); return /Step 2/.test(b.status) && b; }, { what: 'step 2 on the bar' });
    assert.equal(running.stop.shown, true, 'Stop is offered while running');
    assert.equal(running.input.shown, false, 'the input gives way to the run');
    release();
    const done = await waitFor(async () => { const b = await bar(target, cdp); return b.card.shown && b; }, { what: 'the result card' });
    polling = false;
    await poller;
    assert.ok(seen.some((b) => /^The page has one button labelled Press me/.test(b.summary) && /Step 1/.test(b.status)),
      `step 1's thinking was shown: ${JSON.stringify(seen.map((b) => [b.status, b.summary]))}`);
    assert.equal(done.card.kind, 'result');
    assert.equal(done.card.outcome, 'finished');
    assert.match(done.card.text, /Finished: ?pressed the button/);
    assert.equal(done.input.shown, true);
    assert.equal(done.input.value, '');
    assert.equal(done.stop.shown, false);
    // The same run as the panel's: the task reached the model's system prompt, the click landed, the panel logged it.
    assert.match(textOf(model.requests[0].body.messages[0]), /Press the button on this page/);
    assert.deepEqual(await target.evaluate(() => window.events), ['go:true']);
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]');
    assert.equal(await panel.textContent('#log li.user'), 'Press the button on this page');
    assert.equal(await debuggerFree(env, targetUrl), true, 'detached after Finished');
    // Dismiss.
    await target.mouse.click(done.card.dismissAt.x, done.card.dismissAt.y);
    await waitFor(async () => !(await bar(target, cdp)).card.shown, { what: 'the card dismissed' });

    // Panel closed: the bar hides; a panel opened again in the window brings it back.
    const windowId = await panel.evaluate(async () => (await chrome.windows.getCurrent()).id);
    await panel.close();
    await waitFor(async () => !(await bar(target, cdp))?.visible, { what: 'the bar gone with the panel closed' });
    const reopened = env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(`${EXTENSION_ORIGIN}agent/panel/sidepanel.html`) });
    await env.evalInWorker((w) => chrome.tabs.create({ url: 'agent/panel/sidepanel.html', windowId: w, active: false }), windowId);
    const panel2 = await reopened;
    await waitFor(async () => (await bar(target, cdp))?.visible === true, { what: 'the bar back with the panel open' });
    // A page loaded now gets the bar from the registered content script.
    const other = await panel2.evaluate(async ({ url, w }) => (await chrome.tabs.create({ url, windowId: w, active: false })).id, { url: site.url('/assistant.html?later'), w: windowId });
    assert.ok(other);
    const later = await waitFor(() => env.context.pages().find((p) => p.url().endsWith('?later')), { what: 'the later page' });
    await later.waitForLoadState('load');
    const cdpLater = await later.context().newCDPSession(later);
    await waitFor(async () => (await bar(later, cdpLater))?.visible === true, { what: 'the bar on a page loaded after the toggle' });
    await later.close();
    await panel2.close();
  } finally {
    release();
    await model.close();
    await target.close();
  }
});

test('when the agent navigates the tab, the new page\'s bar picks the run up and shows its result', async () => {
  let release;
  const gate = new Promise((r) => { release = r; });
  let target;
  const s = await setup('navigate', async ({ n, body }) => {
    if (n === 1) {
      const c = await centerOf(target, '#next');
      const [x, y] = normalise(c.x, c.y, viewportOf(body));
      return act('Open the next page.', `Click(point=(${x},${y}))`);
    }
    if (n === 2) { await gate; return act('Arrived.', "Finished(content='on the next page')"); }
    return { status: 400, body: 'unexpected' };
  });
  target = s.target;
  const { panel, cdp, model } = s;
  try {
    await enableToggle(panel);
    await submitOnPage(target, cdp, 'Go to the next page');
    await waitFor(() => model.requests.length === 2, { what: 'the request from the next page' });
    assert.match(target.url(), /\?navigated$/);
    // The new page's bar comes up from scratch (its loader, its module, its frame and the frame's token): generous under load.
    const running = await waitFor(async () => { const b = await bar(target, cdp); return b?.stop.shown && /Step 2/.test(b.status) && b; }, { what: 'the run on the new page\'s bar', timeoutMs: 30_000 });
    assert.equal(running.input.shown, false);
    release();
    const done = await waitFor(async () => { const b = await bar(target, cdp); return b.card.shown && b; }, { what: 'the result card on the new page' });
    assert.match(done.card.text, /on the next page/);
  } finally {
    release();
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('CallUser shows the question; the answer typed in the bar continues the same task', async () => {
  const s = await setup('calluser', ({ n, body }) => {
    if (n === 1) return act('I need to know the colour.', "CallUser(content='Which colour?')");
    if (n === 2) {
      const last = textOf(body.messages[body.messages.length - 1]);
      const all = body.messages.map(textOf).join('\n');
      if (!/blue/.test(all) || !/Pick a colour/.test(textOf(body.messages[0]))) return { status: 400, body: `reply not carried: ${last}` };
      return act('The user said blue.', "Finished(content='chose blue')");
    }
    return { status: 400, body: 'unexpected' };
  });
  const { panel, target, cdp, model } = s;
  try {
    await enableToggle(panel);
    await submitOnPage(target, cdp, 'Pick a colour');
    const asked = await waitFor(async () => { const b = await bar(target, cdp); return b.card.shown && b; }, { what: 'the question card' });
    assert.equal(asked.card.outcome, 'call_user');
    assert.match(asked.card.text, /The agent asks: ?Which colour\?/);
    assert.match(asked.input.placeholder, /Answer/);
    await submitOnPage(target, cdp, 'blue', { via: 'button' });
    const done = await waitFor(async () => { const b = await bar(target, cdp); return b.card.outcome === 'finished' && b; }, { what: 'the finished card' });
    assert.match(done.card.text, /chose blue/);
    assert.equal(model.requests.length, 2);
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('Stop in the bar stops the run at once, detaches, and restores the input', async () => {
  const s = await setup('stop', () => ({ hang: true }));
  const { panel, target, cdp, model, targetUrl } = s;
  try {
    await enableToggle(panel);
    // Script-made events do nothing, even run inside the bar's own document (page scripts cannot reach it at all).
    await waitFor(async () => (await bar(target, cdp))?.visible, { what: 'the bar' });
    await uncoveredLongEnough(target);
    await frameOf(target).evaluate(() => {
      document.querySelector('.task').value = 'Scripted task';
      document.querySelector('form').requestSubmit();
      document.querySelector('button.go').click();
      document.querySelector('.task').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      document.querySelector('form').dispatchEvent(new SubmitEvent('submit', { bubbles: true, cancelable: true }));
    });
    await frameOf(target).evaluate(() => { document.querySelector('.task').value = ''; });
    await submitOnPage(target, cdp, 'Wait forever');
    await waitFor(() => model.requests.length === 1, { what: 'the request reached the model' });
    // The person's task is the first the model got: a run the scripted submit had started would have come first.
    assert.match(JSON.stringify(model.requests[0].body), /Wait forever/);
    assert.doesNotMatch(JSON.stringify(model.requests[0].body), /Scripted task/, 'a scripted submit started nothing');
    assert.deepEqual(await panel.locator('#log li.user').allTextContents(), ['Wait forever']);
    assert.notEqual(await debuggerFree(env, targetUrl), true, 'attached while running');
    const b = await waitFor(async () => { const x = await bar(target, cdp); return x.stop.shown && x; }, { what: 'the Stop button' });
    await frameOf(target).evaluate(() => document.querySelector('button.stop').click());
    // One of the two fixed waits left: a Stop that must not happen has no later event to anchor on
    // (the real Stop below ends the run either way), so the scripted click gets 300 ms to do harm.
    await target.waitForTimeout(300);
    assert.equal(model.requests[0].closedAt, undefined, 'a scripted click on Stop stopped nothing');
    await target.mouse.click(b.stop.at.x, b.stop.at.y);
    const end = await waitFor(async () => { const x = await bar(target, cdp); return x.card.shown && x; }, { timeoutMs: 10_000, what: 'the stopped notice' });
    assert.equal(end.card.outcome, 'stopped');
    assert.equal(end.card.kind, 'notice');
    assert.equal(end.input.shown, true);
    await waitFor(() => model.requests[0].closedAt, { timeoutMs: 10_000, what: 'the hung request was aborted' });
    assert.equal(await debuggerFree(env, targetUrl), true);
    await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]');
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('Pause in the bar hands the page to the user and Resume goes on; a question from the bar is answered "I did it on the page"', async () => {
  let target;
  const requests = [];
  const s = await setup('takeover', async ({ body }) => {
    requests.push(body);
    const n = requests.length;
    if (n === 1) return act('Look first.', 'Hover(point=(10,10))');
    if (n === 2) return { hang: true }; // the user pauses meanwhile
    if (n === 3) return act('The user pressed it; one more thing.', "CallUser(content='Please accept the cookie banner, then tell me.')");
    if (n === 4) return act('Done.', "Finished(content='all set')");
    return { status: 400, body: 'unexpected' };
  });
  target = s.target;
  const { panel, cdp, targetUrl } = s;
  try {
    await enableToggle(panel);
    await submitOnPage(target, cdp, 'Press the button when I let you');
    await waitFor(() => requests.length === 2, { what: 'the step 2 request' });
    const running = await waitFor(async () => { const b = await bar(target, cdp); return b.pause.shown && /Step 2/.test(b.status) && b; }, { what: 'Pause on the bar' });
    assert.equal(running.pause.text, 'Pause');
    await target.mouse.click(running.pause.at.x, running.pause.at.y);
    const paused = await waitFor(async () => { const b = await bar(target, cdp); return /^Paused at step 2/.test(b.status) && b; }, { what: 'the paused bar' });
    assert.equal(paused.pause.text, 'Resume');
    assert.equal(paused.stop.shown, true, 'Stop still ends it');
    assert.equal(paused.input.shown, false);
    assert.match(paused.text, /The page is yours: act on it by hand, then press Resume/);
    await panel.waitForSelector('#status[data-state="paused"]');
    assert.equal(await waitFor(async () => (await debuggerFree(env, targetUrl)) === true, { what: 'the tab let go' }), true);
    await shoot(target, 'paused_light');
    // The user acts on the page.
    await target.click('#go');
    assert.deepEqual(await target.evaluate(() => window.events), ['go:true']);
    const again = await bar(target, cdp);
    await target.mouse.click(again.pause.at.x, again.pause.at.y);
    await waitFor(() => requests.length === 3, { what: 'the request after Resume' });
    assert.match(textOf(requests[2].messages.at(-1)), /Note: The user paused the task during step 2, acted on the page by hand and resumed it/);
    const asked = await waitFor(async () => { const b = await bar(target, cdp); return b.card.outcome === 'call_user' && b; }, { what: 'the question card' });
    assert.equal(asked.acted.shown, true, 'the question offers "I did it on the page"');
    await shoot(target, 'question_light');
    const q = await bar(target, cdp);
    await target.mouse.click(q.acted.at.x, q.acted.at.y);
    const done = await waitFor(async () => { const b = await bar(target, cdp); return b.card.outcome === 'finished' && b; }, { what: 'the finished card' });
    assert.match(done.card.text, /all set/);
    assert.match(textOf(requests[3].messages.at(-1)), /The user answered your question: I did it on the page\. The user acted on the page by hand/);
    assert.equal(await panel.locator('#log li.user').last().textContent(), 'I did it on the page.');
  } finally {
    await s.close();
  }
});

test('a failed model request shows its reason and a countdown on the bar until the next attempt; Stop ends the wait', async () => {
  const s = await setup('retry', ({ n }) => {
    if (n === 1) return { status: 429, headers: { 'retry-after': '3' }, body: '{"error":{"message":"slow down"}}' };
    if (n === 2) return { status: 503, body: 'busy' };
    return { status: 400, body: 'unexpected' };
  });
  const { panel, target, cdp, model, targetUrl } = s;
  try {
    // Waits long enough to read: Retry-After (3 s) is honoured up to 6 s, a 503 waits 3 to 6 s.
    await storeSettings(panel, { ...fast, apiUrl: model.url, model: 'venus-test', retryBaseMs: 6000, retryMaxMs: 6000 });
    await target.bringToFront();
    await enableToggle(panel);
    await submitOnPage(target, cdp, 'Do it despite the busy model');
    const first = await waitFor(async () => { const b = await bar(target, cdp); return /^Retrying/.test(b.status) && b; }, { what: 'the 429 countdown on the bar' });
    assert.match(first.status, /^Retrying in [1-3]s — HTTP 429 \(attempt 2\)$/);
    assert.equal(first.mode, 'running');
    assert.equal(first.stop.shown, true, 'Stop is offered while waiting');
    assert.equal(first.stop.disabled, false);
    assert.equal(first.input.shown, false);
    assert.match(first.text, /^Step 1: the model request failed/);
    // The countdown moves on its own (no event comes between two tries).
    await waitFor(async () => (await bar(target, cdp)).status !== first.status, { what: 'the countdown moving', timeoutMs: 10_000 });
    await shoot(target, 'retrying_light');
    const second = await waitFor(async () => { const b = await bar(target, cdp); return /HTTP 503/.test(b.status) && b; }, { what: 'the 503 countdown', timeoutMs: 15_000 });
    assert.match(second.status, /^Retrying in [1-6]s — HTTP 503 \(attempt 3\)$/);
    assert.equal(model.requests.length, 2);
    await inScheme(target, 'dark');
    await shoot(target, 'retrying_dark');
    await inScheme(target, 'light');
    const b = await bar(target, cdp);
    await target.mouse.click(b.stop.at.x, b.stop.at.y);
    const end = await waitFor(async () => { const x = await bar(target, cdp); return x.card.shown && x; }, { timeoutMs: 10_000, what: 'the stopped notice' });
    assert.equal(end.card.outcome, 'stopped');
    assert.doesNotMatch(end.status, /Retrying/);
    assert.equal(end.input.shown, true);
    await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]');
    assert.equal(await debuggerFree(env, targetUrl), true);
    assert.equal(model.requests.length, 2, 'no try after Stop');
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('missing settings show the panel\'s own message on the page and keep the typed task; toggling off removes the bar, on brings it back', async () => {
  const s = await setup('missing', null);
  const { panel, target, cdp, targetUrl } = s;
  try {
    await storeSettings(panel, { ...fast, apiUrl: '', model: 'venus-test' });
    await enableToggle(panel);
    await submitOnPage(target, cdp, 'Do something');
    const b = await waitFor(async () => { const x = await bar(target, cdp); return x.message && x; }, { what: 'the message on the page' });
    const li = await panel.waitForSelector('#log li.blocked');
    const panelText = await li.evaluate((el) => el.firstChild.textContent);
    assert.equal(b.message, panelText);
    assert.equal(b.message, 'Set the API URL in Settings: the API URL is empty.');
    assert.equal(b.input.shown, true);
    assert.equal(b.input.value, 'Do something');
    assert.equal(await debuggerFree(env, targetUrl), true);

    // Off: the bar is removed and the content script unregistered.
    await panel.click('#page-assistant-enabled');
    await waitFor(async () => (await bar(target, cdp)) === null, { what: 'the bar removed' });
    assert.deepEqual(await env.evalInWorker(async () => (await chrome.scripting.getRegisteredContentScripts()).map((c) => c.id).filter((id) => id === 'gnosis-page-assistant')), []);
    // On again: the same page shows it again, with a fresh input.
    await enableToggle(panel);
    const again = await waitFor(async () => { const x = await bar(target, cdp); return x?.visible && x; }, { what: 'the bar back after toggling on' });
    assert.equal(again.input.value, '');
    assert.equal(again.message, '');
  } finally {
    await panel.close();
    await target.close();
  }
});

test('a hostile page cannot read, rewrite, start or notice a task typed in the bar, nor get one typed while it covers the bar', async () => {
  const TASK = 'Summarise this quarterly report';
  let release;
  const gate = new Promise((r) => { release = r; });
  const model = await startModelServer(async ({ n }) => {
    if (n === 1) { await gate; return act('The report says revenue grew.', "Finished(content='Revenue grew in every region.')"); }
    return { status: 400, body: 'unexpected' };
  });
  const targetUrl = site.url('/page_assistant_hostile.html');
  const { panel, target } = await openPanelAndTarget(env, targetUrl);
  const cdp = await target.context().newCDPSession(target);
  try {
    await storeSettings(panel, { ...fast, apiUrl: model.url, model: 'venus-test' });
    await target.bringToFront();
    await enableToggle(panel);
    const b0 = await waitFor(async () => { const b = await bar(target, cdp); return b?.visible && !b.covered && b; }, { what: 'the bar on the hostile page' });
    const file = await shoot(target, 'idle_light');
    console.log(`# screenshot: ${file}`);

    // The recorders work: keys typed into the page's own input are all seen.
    await target.click('#own');
    await target.keyboard.type('hi');
    assert.deepEqual(await target.evaluate(() => window.recorded.filter((r) => r.type === 'keydown').map((r) => `${r.on}:${r.key}`)),
      ['window:h', 'document:h', 'window:i', 'document:i']);
    await target.evaluate(() => { window.recorded = []; });

    // Reaching into the bar: a closed shadow root, no frame the page can open.
    const reach = await target.evaluate(() => window.attack.reach());
    assert.equal(reach.host, true);
    assert.equal(reach.shadowRoot, null);
    assert.equal(reach.hostChildren, 0);
    assert.equal(reach.hostText, '');
    assert.equal(reach.iframes, 0, 'no iframe in the document tree');
    for (const f of reach.frameAccess) assert.deepEqual(f, { document: 'blocked', location: 'blocked' }, 'a frame reference, if any, opens nothing');

    // Script-made keys, inputs, clicks and submits aimed at the bar start nothing.
    // What they would have started is anchored below: the user's own task is the first the model gets.
    await target.evaluate(() => window.attack.synthetic());
    // The page's own Enter handler selected the page (a selected iframe is painted tinted): clear it for the pictures.
    await target.evaluate(() => { getSelection().removeAllRanges(); window.recorded = []; });
    assert.equal(model.requests.length, 0, 'no task from synthetic events');
    assert.equal(await panel.locator('#log li.user').count(), 0);
    assert.equal((await bar(target, cdp)).input.value, '', 'nothing reached the bar\'s input');

    // A near-transparent overlay laid over the bar while the user's focus is in it (the page
    // would show its own text through it): the bar takes no typing and no submit.
    await target.mouse.click(b0.input.at.x, b0.input.at.y);
    await focusInBar(target);
    await target.evaluate(() => window.attack.overlay(true));
    const covered = await waitFor(async () => { const b = await bar(target, cdp); return b.covered && b; }, { what: 'the bar noticing the overlay' });
    assert.match(covered.text, /covers, fades or distorts the assistant/);
    assert.equal(covered.input.readOnly, true);
    assert.equal(covered.go.disabled, true);
    await shoot(target, 'covered_light');
    await target.keyboard.type('Covered task');
    // Key events are dispatched and handled before press() returns; a task they sent is anchored below.
    await target.keyboard.press('Enter');
    assert.equal((await bar(target, cdp)).input.value, '', 'typing refused while covered');
    assert.deepEqual(await target.evaluate(() => window.recorded), [], 'the keys went to the bar, not the page');
    assert.equal(model.requests.length, 0, 'no task while covered');
    // A click aimed at Run lands on the page's overlay, not the bar.
    await target.mouse.click(b0.go.at.x, b0.go.at.y);
    assert.deepEqual(await target.evaluate(() => window.recorded), [{ on: 'cover', type: 'click' }]);
    assert.equal(model.requests.length, 0);
    await target.evaluate(() => window.attack.overlay(false));
    await waitFor(async () => !(await bar(target, cdp)).covered, { what: 'the bar uncovered' });
    await target.evaluate(() => { window.recorded = []; });
    const changesBefore = await target.evaluate(() => window.changes.length);

    // The user's own task: typed and sent in the frame while the page's capture listeners and execCommand wait for it.
    await submitOnPage(target, cdp, TASK);
    await waitFor(() => model.requests.length === 1, { what: 'the task at the model' });
    const system = textOf(model.requests[0].body.messages[0]);
    assert.match(system, new RegExp(TASK));
    assert.doesNotMatch(system, /EVIL/);
    await waitFor(async () => (await panel.textContent('#log li.user').catch(() => '')) === TASK, { what: 'the panel logging the task' });
    assert.equal(await panel.textContent('#log li.user'), TASK, 'exactly the typed task');
    // This positive end anchors the checks above: any task a script, an overlay or a late event had
    // started would have reached the model and the panel before this one.
    assert.equal(model.requests.length, 1, 'the user\'s task is the first and only one the model got');
    assert.equal(await panel.locator('#log li.user').count(), 1, 'the panel logged one task');
    const running = await waitFor(async () => { const b = await bar(target, cdp); return b.mode === 'running' && /Step 1/.test(b.status) && b; }, { what: 'the run on the bar' });
    await shoot(target, 'running_light');
    await inScheme(target, 'dark');
    await shoot(target, 'running_dark');
    await inScheme(target, 'light');
    release();
    const done = await waitFor(async () => { const b = await bar(target, cdp); return b.card.shown && b; }, { what: 'the result card' });
    assert.match(done.card.text, /Finished: Revenue grew in every region\./);
    await shoot(target, 'finished_light');
    await inScheme(target, 'dark');
    await shoot(target, 'finished_dark');
    await inScheme(target, 'light');
    await target.mouse.click(done.card.dismissAt.x, done.card.dismissAt.y);
    await waitFor(async () => !(await bar(target, cdp)).card.shown, { what: 'the card dismissed' });
    await inScheme(target, 'dark');
    await shoot(target, 'idle_dark');
    await inScheme(target, 'light');

    // The page saw no key, no text, and no change of the bar's element through the whole run.
    const seen = await target.evaluate(() => ({ recorded: window.recorded, changes: window.changes }));
    assert.deepEqual(seen.recorded, [], 'the page recorded no keystroke of the bar');
    assert.doesNotMatch(JSON.stringify(seen), /Summarise|quarterly|Revenue grew in every/i);
    assert.deepEqual(seen.changes.slice(changesBefore), [], 'the bar\'s element did not change with the submission');
    assert.equal(running.box.height, b0.box.height, 'the bar keeps its size while running');

    // The page may remove the bar: it is gone, and nothing puts it back behind the user's back.
    await target.evaluate(() => document.querySelector('gnosis-page-assistant').remove());
    // Anchor: the content script handles one more event of the same state (the panel open) after the removal.
    await env.evalInWorker(async ({ url, type }) => {
      const tab = (await chrome.tabs.query({})).find((t) => t.url === url);
      await chrome.tabs.sendMessage(tab.id, { type, event: { type: 'panel', open: true } }).catch(() => {});
    }, { url: target.url(), type: PAGE_ASSISTANT_EVENT });
    assert.equal(await bar(target, cdp), null);
  } finally {
    release();
    await model.close();
    await panel.close();
    await target.close();
  }
});

test('a page that embeds its own copy of the bar, crops it to the input under its own label and removes the real one gets nothing: no task, no state, no run', async () => {
  const SECRET = 'alice@example.com my-password';
  const s = await setup('borrow', async ({ body }) => {
    if (/SECRET-PROBE|alice@example/.test(JSON.stringify(body))) return { status: 400, body: 'the attack reached the model' };
    return { hang: true };
  }, { page: '/page_assistant_hostile.html' });
  const { panel, target, cdp, model } = s;
  const copyOf = () => target.frames().find((f) => f.url().startsWith(FRAME_URL) && f.parentFrame() === target.mainFrame() && f !== realFrame);
  let realFrame;
  try {
    await enableToggle(panel);
    await waitFor(async () => { const b = await bar(target, cdp); return b?.visible && !b.covered && b; }, { what: 'the real bar' });
    realFrame = frameOf(target);
    // The attack: embed a copy, crop it to the input, relabel it, remove the real bar.
    await target.evaluate((id) => window.attack.borrow(id), EXTENSION_ID);
    await waitFor(() => copyOf(), { what: 'the embedded copy' });
    const copy = copyOf();
    await copy.waitForLoadState('load');
    assert.equal(await waitFor(async () => (await bar(target, cdp)) === null, { what: 'the real bar gone' }), true, 'the real bar is gone');
    // The copy never learns the setting or the panel state: it shows nothing, so there is nothing to type into.
    assert.deepEqual(await copy.evaluate(() => ({ hidden: document.querySelector('.bar').hidden, status: document.querySelector('.status').textContent })), { hidden: true, status: '' });
    const box = await target.evaluate(() => { const r = document.getElementById('borrowed').getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
    await shoot(target, 'borrowed_copy');
    await target.mouse.click(box.x, box.y);
    await target.keyboard.type(SECRET);
    await target.keyboard.press('Enter');
    // The worker refuses the copy even if its own code sent a task (a page cannot run code in it; the test can).
    const refused = await copy.evaluate(() => chrome.runtime.sendMessage({ type: 'agent.pageTask', task: 'SECRET-PROBE from the copy' }));
    assert.deepEqual(refused, { ok: false, error: 'This assistant bar was not placed by Gnosis on this page; use the bar Gnosis shows, or the side panel.' });
    for (const type of ['agent.pageStop', 'agent.pagePause', 'agent.pageResume']) {
      assert.equal((await copy.evaluate((t) => chrome.runtime.sendMessage({ type: t }), type)).ok, false, type);
    }
    // A run on this tab reveals nothing to the copy.
    await panel.fill('#task', 'Look at this page');
    await panel.click('#run');
    await waitFor(() => model.requests.length === 1, { what: 'the panel\'s own task at the model' });
    // The other fixed wait left: the run's events go only to trusted frames, and with the real bar
    // removed no frame shows them arriving, so the copy gets 500 ms to receive what it must not.
    await target.waitForTimeout(500);
    assert.deepEqual(await copy.evaluate(() => ({ hidden: document.querySelector('.bar').hidden, status: document.querySelector('.status').textContent, text: document.querySelector('.text').textContent })),
      { hidden: true, status: '', text: 'Type a task for this page and press Enter. The page cannot see what you type here.' });
    // Anchored on the panel's task reaching the model: nothing the attack typed or sent came before it.
    assert.equal(model.requests.length, 1);
    assert.doesNotMatch(JSON.stringify(model.requests[0].body), /alice@example|SECRET-PROBE|my-password/);
    assert.equal(await panel.locator('#log li.user').count(), 1);
    assert.equal(await panel.textContent('#log li.user'), 'Look at this page');
    await panel.click('#stop');
    await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]');
  } finally {
    await s.close();
  }
});

test('the real bar refuses input while the page crops it to its input row, shrinks it or pushes it partly off-screen', async () => {
  const s = await setup('distort', () => ({ hang: true }), { page: '/page_assistant_hostile.html' });
  const { panel, target, cdp, model } = s;
  try {
    await enableToggle(panel);
    const whole = await waitFor(async () => { const b = await bar(target, cdp); return b?.visible && !b.covered && b; }, { what: 'the bar' });
    for (const [kind, message] of [['crop', /shows only part of the assistant/], ['shrink', /covers, fades or distorts the assistant/], ['offscreen', /shows only part of the assistant/]]) {
      await target.mouse.click(whole.input.at.x, whole.input.at.y);
      await target.evaluate((k) => window.attack.distort(k), kind);
      const locked = await waitFor(async () => { const b = await bar(target, cdp); return b.covered && message.test(b.text) && b; }, { what: `the bar noticing ${kind}` });
      assert.equal(locked.input.readOnly, true, kind);
      if (kind === 'crop') await shoot(target, 'cropped');
      // The user, fooled by the page's label, types and presses Enter: the bar takes none of it.
      await target.keyboard.type(`${kind} secret`);
      await target.keyboard.press('Enter');
      await target.evaluate(() => window.attack.distort('none'));
      await waitFor(async () => !(await bar(target, cdp)).covered, { what: `the bar whole again after ${kind}` });
      assert.equal((await bar(target, cdp)).input.value, '', `nothing typed while ${kind}`);
    }
    // Anchor: the user's own task, typed into the whole bar, is the first the model gets.
    await submitOnPage(target, cdp, 'The real task');
    await waitFor(() => model.requests.length === 1, { what: 'the real task at the model' });
    assert.match(textOf(model.requests[0].body.messages[0]), /The real task/);
    assert.doesNotMatch(JSON.stringify(model.requests[0].body), /secret/);
  } finally {
    await s.close();
  }
});
