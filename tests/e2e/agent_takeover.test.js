// The user and the agent sharing a tab, end to end with the scripted model:
// Stop is shown at once even while the page's click handler blocks its main
// thread (the debugger is let go after); Pause hands the page to the user,
// who acts on it by hand, and Resume goes on with a request that says so and
// carries a fresh screenshot; Stop ends a paused task; a question is answered
// "I did it on the page"; a task cut short by closing the panel says, after a
// reopen, that it was interrupted and at which step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from './lib/harness.js';
import { textOf, imagesOf, viewportOf, normalise } from './lib/model_server.js';
import { TARGET_HTML, agentSuite, centerOf, openPanelAndTarget, storeSettings, runTask, debuggerFree } from './lib/agent_fixture.js';

/** A page whose button's click handler blocks the main thread for BLOCK_MS, telling the server when it starts. */
const BLOCK_MS = 6000;
const BLOCKING_HTML = `<!doctype html>
<html><head><title>Busy page</title><style>
body { margin: 0; font: 16px sans-serif; }
#block { position: absolute; left: 100px; top: 100px; width: 200px; height: 50px; }
</style></head><body>
<button id="block">Recalculate</button>
<script>
document.getElementById('block').addEventListener('click', () => {
  fetch('/blocking', { method: 'POST', keepalive: true, body: String(Date.now()) });
  const t = performance.now();
  while (performance.now() - t < ${BLOCK_MS}) { /* the page's main thread is busy */ }
  window.blockEndedAt = Date.now();
});
</script></body></html>`;

/** When the page's click handler started blocking (the server's clock). */
const blocking = [];
const suite = agentSuite({ routes: {
  '/target.html': { body: TARGET_HTML },
  '/busy.html': { body: BLOCKING_HTML },
  '/blocking': (req, res) => { blocking.push(Date.now()); res.writeHead(204); res.end(); },
} });

const settingsFor = (extra = {}) => ({ apiUrl: suite.model.url, model: 'venus-test', maxSteps: 20, temperature: 0.5, requestTimeoutMs: 60_000, retryBaseMs: 20, retryMaxMs: 200, ...extra });
const act = (think, action) => ({ content: `<think>${think}</think>\n<action>${action}</action>` });
const lastText = (b) => textOf(b.messages[b.messages.length - 1]);
/** The current screenshot of a request (its last image). */
const currentShot = (b) => imagesOf(b).at(-1).image_url.url;

/** A script that answers the n-th request of this test (from 1) with steps[n - 1]; later ones hang. */
function script(steps) {
  const seen = [];
  suite.play = ({ body }) => {
    seen.push(body);
    const step = steps[seen.length - 1];
    return step ? step(body, seen.length) : { hang: true };
  };
  return seen;
}

/** Opens the panel and a target page, runs fn, and closes both whatever happens (an open panel would keep later tasks from being seen as interrupted). */
async function withTarget(url, fn) {
  const { panel, target } = await openPanelAndTarget(suite.env, url);
  try {
    await storeSettings(panel, settingsFor(), 'k');
    await fn({ panel, target });
  } finally {
    await target.close().catch(() => {});
    await panel.close().catch(() => {});
  }
}

/**
 * Records, in the panel, when Stop was clicked and when the outcome appeared
 * (performance.now and Date.now), and whether the agent's debugger was still
 * attached to targetUrl's tab at that moment (a second attach is refused while it is).
 */
function timeStop(panel, targetUrl) {
  return panel.evaluate(async (url) => {
    const [tab] = await chrome.tabs.query({ url });
    window.stopTimes = {};
    document.getElementById('stop').addEventListener('click', () => { window.stopTimes.clicked = performance.now(); }, { capture: true });
    new MutationObserver(() => {
      if (!window.stopTimes.shown && document.querySelector('#log li.outcome')) {
        window.stopTimes.shown = performance.now();
        window.stopTimes.shownEpoch = Date.now();
        chrome.debugger.attach({ tabId: tab.id }, '1.3').then(
          () => { window.stopTimes.attachedWhenShown = false; return chrome.debugger.detach({ tabId: tab.id }); },
          () => { window.stopTimes.attachedWhenShown = true; });
      }
    }).observe(document.getElementById('log'), { childList: true });
  }, targetUrl);
}

test('Stop shows "Stopped" at once while the page\'s click handler blocks its main thread; the tab is let go after', async () => {
  await withTarget(suite.site.url('/busy.html'), async ({ panel, target }) => {
    const seen = script([
      async (b) => {
        const c = await centerOf(target, '#block');
        return act('Press it.', `Click(point=(${normalise(c.x, c.y, viewportOf(b)).join(',')}))`);
      },
    ]);
    await timeStop(panel, target.url());
    blocking.length = 0;
    await runTask(panel, 'Recalculate the sheet');
    await waitFor(() => blocking.length === 1, { what: 'the page blocking its main thread', timeoutMs: 15_000 });
    await panel.waitForFunction(() => /acting…/.test(document.getElementById('status').textContent));
    await panel.click('#stop');
    const li = await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]', { timeout: 5000 });
    const times = await waitFor(() => panel.evaluate(() => window.stopTimes.attachedWhenShown !== undefined && window.stopTimes), { what: 'the debugger state when Stopped showed' });
    assert.match(await li.textContent(), /^Stopped at step 1\./);
    // The stopped step says where it was cut short.
    assert.equal(await panel.textContent('#log li.step[data-step="1"] .result'), 'Stopped here, while acting.');
    assert.equal(await panel.isDisabled('#run'), false, 'the panel is ready for the next task');
    // "Stopped" came while the page was still blocked: it did not wait for the page, nor for the debugger to let go.
    const blockEndedAt = await waitFor(() => target.evaluate(() => window.blockEndedAt), { what: 'the page free again', timeoutMs: 15_000 });
    assert.ok(times.shownEpoch < blockEndedAt, `Stopped shown at ${times.shownEpoch}, the page was blocked until ${blockEndedAt}`);
    assert.equal(times.attachedWhenShown, true, 'shown first, the debugger let go after');
    const latency = times.shown - times.clicked;
    console.log(`# Stop → "Stopped" with the page's main thread blocked: ${latency.toFixed(1)} ms`);
    assert.ok(latency < 1000, `Stopped shown ${latency} ms after the click`);
    assert.equal(await waitFor(async () => (await debuggerFree(suite.env, target.url())) === true, { what: 'the debugger let go', timeoutMs: 10_000 }), true);
    assert.equal(seen.length, 1);
  });
});

test('Pause hands the page to the user; Resume goes on with a request that says the user acted and a fresh screenshot', async () => {
  await withTarget(suite.site.url('/target.html?takeover'), async ({ panel, target }) => {
    const seen = script([
      () => act('Look around first.', 'Hover(point=(10,10))'),
      null, // step 2 hangs: the user pauses meanwhile
    ]);
    await runTask(panel, 'Fill in the name once the user is done');
    await waitFor(() => seen.length === 2, { what: 'the step 2 request' });
    await panel.click('#pause');
    await panel.waitForSelector('#status[data-state="paused"]');
    assert.equal(await panel.textContent('#pause'), 'Resume');
    assert.equal(await panel.isDisabled('#stop'), false, 'Stop still ends it');
    assert.match(await panel.textContent('#status'), /^Paused at step 2: the page is yours/);
    assert.equal(await waitFor(async () => (await debuggerFree(suite.env, target.url())) === true, { what: 'the tab let go while paused' }), true);
    // The user acts on the page by hand.
    await target.bringToFront();
    await target.click('#name');
    await target.keyboard.type('typed by the user');
    assert.deepEqual(await target.evaluate(() => window.events.filter((e) => e.startsWith('name:')).at(-1)), 'name:typed by the user');
    let third;
    // The hung request of step 2 was abandoned by Pause; what comes after Resume:
    const resumed = script([
      (b) => { third = b; return act('The user filled the name.', "Finished(content='name filled by the user')"); },
    ]);
    await panel.click('#pause');
    const end = await panel.waitForSelector('#log li.outcome[data-outcome="finished"]', { timeout: 30_000 });
    assert.match(await end.textContent(), /name filled by the user/);
    assert.equal(resumed.length, 1);
    assert.match(lastText(third), /Note: The user paused the task during step 2, acted on the page by hand and resumed it\. The page may have changed: look at the current screenshot/);
    assert.match(lastText(third), /Step 2 of at most 20/, 'the step the model never answered is asked again');
    assert.notEqual(currentShot(third), currentShot(seen[1]), 'a fresh screenshot, taken after the user acted');
    assert.equal(await panel.locator('#log li.paused').count(), 1);
    assert.equal(await panel.locator('#log li.resumed').count(), 1);
  });
});

test('Stop ends a paused task; a question answered "I did it on the page" continues with what the user did', async () => {
  await withTarget(suite.site.url('/target.html?acted'), async ({ panel }) => {
    script([() => act('Wait a bit.', 'Wait()')]);
    await runTask(panel, 'Wait for the user');
    await panel.waitForFunction(() => /Step 2/.test(document.getElementById('status').textContent));
    await panel.click('#pause');
    await panel.waitForSelector('#status[data-state="paused"]');
    await panel.click('#stop');
    const stopped = await panel.waitForSelector('#log li.outcome[data-outcome="stopped"]');
    assert.match(await stopped.textContent(), /^Stopped at step 2\./);
    assert.equal(await panel.isVisible('#pause'), false);

    let answer;
    script([
      () => act('A login is needed.', "CallUser(content='Please log in, then tell me.')"),
      (b) => { answer = b; return act('Logged in now.', "Finished(content='logged in')"); },
    ]);
    await runTask(panel, 'Open my account');
    await panel.waitForSelector('#log li.outcome[data-outcome="call_user"]');
    assert.equal(await panel.isVisible('#acted'), true, 'the question offers "I did it on the page"');
    await panel.click('#acted');
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]');
    assert.match(lastText(answer), /You asked the user \(CallUser\): Please log in, then tell me\.\n\nThe user answered your question: I did it on the page\. The user acted on the page by hand: the current screenshot shows the page as it is now\./);
    assert.doesNotMatch(lastText(answer), /Result of step 1/, 'no empty result line before the question');
    assert.equal(await panel.locator('#log li.user').last().textContent(), 'I did it on the page.');
  });
});

test('a task cut short by closing the panel says, after a reopen, that it was interrupted and at which step', async () => {
  await withTarget(suite.site.url('/target.html?interrupted'), async ({ panel }) => {
    await panel.click('#new-conversation');
    const seen = script([() => act('Hover first.', 'Hover(point=(20,20))')]);
    await runTask(panel, 'A task the panel will not finish');
    await waitFor(() => seen.length === 2, { what: 'the step 2 request' });
    await panel.waitForFunction(() => document.body.dataset.saving !== 'true');
    await panel.close();
    const reopened = await suite.env.openExtensionPage('agent/panel/sidepanel.html');
    await reopened.waitForSelector('body[data-ready="true"]');
    const li = await reopened.waitForSelector('#log li.outcome[data-outcome="interrupted"]');
    assert.equal(await li.evaluate((el) => el.firstChild.textContent), 'Interrupted at step 2: the side panel was closed during step 2.');
    assert.equal(await reopened.textContent('#run'), 'Run', 'nothing is pending');
    // Told once: a second reopen shows it among the past records, not as news.
    await reopened.close();
    const third = await suite.env.openExtensionPage('agent/panel/sidepanel.html');
    await third.waitForSelector('body[data-ready="true"]');
    await third.waitForSelector('#past li.past-outcome[data-outcome="interrupted"]');
    assert.equal(await third.locator('#log li.outcome').count(), 0);
    await third.close();
  });
});
