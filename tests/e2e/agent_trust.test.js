// The agent against a hostile page and faults (issue 29 items 5-7), in real
// Chromium with the scripted model: a tab the page opens during a task is
// followed only to an http(s) page (about:blank written by the page and a
// blob: document are refused in words); a worker stopped in the middle of a
// LongPress (CDP ServiceWorker.stopAllWorkers) leaves no button pressed and
// no debugger attached, the panel says which step was interrupted, and the
// next task takes the tab; a 401 whose body is an HTML page shows as text,
// and a server that echoes the API key has it masked in the panel and in the
// stored conversation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalise, textOf, viewportOf } from './lib/model_server.js';
import { waitFor } from './lib/harness.js';
import { agentSuite, centerOf, debuggerFree, openPanelAndTarget, outcome, runTask, shootPanel, storeSettings } from './lib/agent_fixture.js';

const OPENER_HTML = `<!doctype html><html><head><title>Opener</title><style>
body { margin: 0; font: 16px sans-serif; }
button { position: absolute; left: 60px; width: 220px; height: 50px; }
#blank { top: 60px; } #blob { top: 160px; } #hold { top: 260px; }
</style></head><body>
<button id="blank">Open a written popup</button>
<button id="blob">Open a blob page</button>
<button id="hold">Hold me</button>
<script>
window.events = [];
const log = (s) => window.events.push(s);
document.getElementById('blank').onclick = () => {
  const w = window.open('about:blank', '_blank');
  w.document.write('<title>Sign in</title><p>Your bank password: <input type=password></p>');
};
document.getElementById('blob').onclick = () => {
  window.open(URL.createObjectURL(new Blob(['<title>blob page</title><p>built by the page</p>'], { type: 'text/html' })), '_blank');
};
const hold = document.getElementById('hold');
hold.addEventListener('mousedown', () => log('down'));
window.addEventListener('mouseup', () => log('up'));
</script></body></html>`;

const suite = agentSuite({ routes: { '/opener.html': { body: OPENER_HTML } } });
const act = (a) => ({ content: `<think>next</think><action>${a}</action>` });
const lastText = (body) => textOf(body.messages[body.messages.length - 1]);
const SETTINGS = (model) => ({ maxSteps: 10, temperature: 0, requestTimeoutMs: 10000, retryBaseMs: 20, retryMaxMs: 200, apiUrl: model.url, model: 'venus-test' });

async function closeAll(panel) {
  const { env, site } = suite;
  for (const p of env.context.pages()) if (p.url().startsWith(site.origin) || p === panel || p.url().startsWith('blob:') || p.url() === 'about:blank') await p.close().catch(() => {});
}

test('a tab the page opens is followed only to an http(s) page: about:blank written by the page and a blob: page are refused, in words', async () => {
  const { env, site } = suite;
  const url = site.url('/opener.html');
  const { panel, target } = await openPanelAndTarget(env, url);
  const at = async (sel, body) => {
    const c = await centerOf(target, sel);
    return `(${normalise(c.x, c.y, viewportOf(body)).join(',')})`;
  };
  const seen = [];
  suite.play = async ({ n, body }) => {
    seen.push(lastText(body));
    if (n === 1) return act(`Click(point=${await at('#blank', body)})`);
    if (n === 2) return act(`Click(point=${await at('#blob', body)})`);
    return act("Finished(content='done')");
  };
  try {
    await storeSettings(panel, SETTINGS(suite.model));
    await runTask(panel, 'Open the popups');
    const end = await outcome(panel, 30_000);
    assert.equal(end.outcome, 'finished', end.text);
    const refusal = /The page opened a new tab \((about:blank|blob:http:\/\/127\.0\.0\.1:\d+\/[-0-9a-f]+)\); the agent controls only http:\/\/ or https:\/\/ pages, so it did not follow it and stays on this tab\./;
    for (const [i, kind] of [[1, 'about:blank'], [2, 'blob:']]) {
      assert.match(seen[i], refusal, `the model is told about the ${kind} tab`);
      assert.ok(seen[i].includes(`(${kind}`), seen[i].slice(0, 400));
      assert.match(seen[i], /URL: http:\/\/127\.0\.0\.1:\d+\/opener\.html/, 'the agent stays on the page');
    }
    const results = await panel.locator('#log .result').allTextContents();
    assert.equal(results.filter((t) => refusal.test(t)).length, 2, `the panel says so: ${results.join(' | ')}`);
    await shootPanel(panel, 'follow_refused');
    const tabs = await env.evalInWorker(async () => (await chrome.tabs.query({})).map((t) => t.url));
    const blob = tabs.find((u) => u.startsWith('blob:'));
    assert.ok(blob && tabs.includes('about:blank'), `both tabs opened: ${tabs}`);
    assert.equal(await debuggerFree(env, blob), true);
    assert.equal(await debuggerFree(env, url), true);
  } finally {
    await closeAll(panel);
  }
});

const KEY = 'sk-live-Zq8Wm3Rt6Yp1Ux4Kb7Nc0Vd';
const NGINX_401 = '<html>\r\n<head><title>401 Authorization Required</title></head>\r\n<body>\r\n<center><h1>401 Authorization Required</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Everything the panel keeps in IndexedDB and extension storage (the key's own entry aside), as one string. */
function everythingStored(panel) {
  return panel.evaluate(async () => {
    const db = await new Promise((resolve, reject) => { const r = indexedDB.open('gnosis-agent'); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const out = {};
    for (const name of db.objectStoreNames) {
      const tx = db.transaction(name, 'readonly');
      out[name] = await new Promise((resolve) => { const r = tx.objectStore(name).getAll(); r.onsuccess = () => resolve(r.result); });
    }
    db.close();
    const local = await chrome.storage.local.get(null);
    const session = await chrome.storage.session.get(null);
    delete local['agent.apiKey'];
    delete session['agent.apiKey'];
    return JSON.stringify({ out, local, session }, (k, v) => (v instanceof Blob || v instanceof ArrayBuffer || ArrayBuffer.isView(v) ? '[bytes]' : v));
  });
}

test('a 401 whose body is an HTML page shows as text; a server that echoes the API key has it masked in the panel and in what is stored', async () => {
  const { env, site } = suite;
  const { panel } = await openPanelAndTarget(env, site.url('/opener.html'));
  try {
    await storeSettings(panel, SETTINGS(suite.model), KEY);
    suite.play = () => ({ status: 401, headers: { 'content-type': 'text/html' }, body: NGINX_401 });
    await runTask(panel, 'First task');
    const first = await outcome(panel, 30_000);
    assert.equal(first.outcome, 'error', first.text);
    assert.match(first.text, /401 Authorization Required nginx/);
    assert.doesNotMatch(first.text, /<|>|center|title/);
    await shootPanel(panel, 'error_401_html');
    // The server echoes the key: in a reply the model streams, then in its error.
    let n = 0;
    suite.play = () => (++n === 1
      ? { content: `<think>The user's key is ${KEY}.</think><action>Finished(content='done with ${KEY}')</action>` }
      : { status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.example/account/api-keys.` } }) });
    await panel.click('#log li.outcome'); // focus away from the task box
    await runTask(panel, 'Second task');
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]', { timeout: 30_000 });
    await runTask(panel, 'Third task');
    await panel.waitForFunction(() => document.querySelectorAll('#log li.outcome[data-outcome="error"]').length === 2, null, { timeout: 30_000 });
    const shown = await panel.evaluate(() => document.body.innerText + document.body.innerHTML);
    assert.ok(!shown.includes(KEY), 'the panel never shows the key');
    assert.ok(!shown.includes(KEY.slice(3, -4)), 'not even its middle');
    assert.ok(shown.includes('Incorrect API key provided: sk-…c0Vd.'), 'the key shows masked');
    await shootPanel(panel, 'error_key_masked');
    const stored = await everythingStored(panel);
    assert.ok(stored.includes('Incorrect API key provided'), 'the error is stored');
    assert.ok(!stored.includes(KEY.slice(3, -4)), `the stored conversation never holds the key: ${stored.slice(0, 300)}`);
    // Reopened, the conversation shows the masked text from the store.
    await panel.reload();
    await panel.waitForSelector('body[data-ready="true"]');
    const again = await panel.evaluate(() => document.body.innerText);
    assert.ok(!again.includes(KEY.slice(3, -4)));
  } finally {
    await closeAll(panel);
  }
});

/** The records of the panel's conversations, from IndexedDB. */
function storedRecords(panel) {
  return panel.evaluate(async () => {
    const db = await new Promise((resolve, reject) => { const r = indexedDB.open('gnosis-agent'); r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
    const tx = db.transaction('records', 'readonly');
    const all = await new Promise((resolve) => { const r = tx.objectStore('records').getAll(); r.onsuccess = () => resolve(r.result); });
    db.close();
    return all.map(({ kind, step, text, outcome, error }) => ({ kind, step, text, outcome, error }));
  });
}

test('the worker stops in the middle of a LongPress: the button is released, the tab let go, the step named in words, and the next task takes the tab', async () => {
  const { env, site } = suite;
  const url = site.url('/opener.html');
  const { panel, target } = await openPanelAndTarget(env, url);
  let n = 0;
  suite.play = async ({ body }) => {
    n++;
    if (n === 1) {
      const c = await centerOf(target, '#hold');
      return act(`LongPress(point=(${normalise(c.x, c.y, viewportOf(body)).join(',')}), duration=25)`);
    }
    return act("Finished(content='next task done')");
  };
  try {
    await storeSettings(panel, SETTINGS(suite.model));
    await runTask(panel, 'Hold the button');
    await waitFor(async () => (await target.evaluate(() => window.events)).includes('down'), { what: 'the button pressed', timeoutMs: 30_000 });
    const cdp = await env.context.newCDPSession(panel);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    const end = await outcome(panel, 30_000);
    assert.equal(end.outcome, 'error', end.text);
    assert.match(end.text, /Interrupted at step 1 \(LongPress\(point=\(\d+,\d+\), duration=25\)\) while acting: the browser stopped Gnosis's background worker\. The action may have been done in part\. Gnosis released the mouse buttons and keys it held and let go of the tab\./);
    assert.doesNotMatch(await panel.evaluate(() => document.body.innerText), /message channel|Receiving end|listener indicated/i);
    // The restarted worker released the press and let go of the tab.
    await waitFor(async () => (await target.evaluate(() => window.events)).includes('up'), { what: 'the button released', timeoutMs: 15_000 });
    await waitFor(async () => (await debuggerFree(env, url)) === true, { what: 'the tab let go', timeoutMs: 15_000 });
    await shootPanel(panel, 'worker_stopped');
    const records = await storedRecords(panel);
    const out = records.filter((r) => r.kind === 'outcome').at(-1);
    assert.equal(out.step, 1, JSON.stringify(out));
    assert.match(out.text, /^Interrupted at step 1 \(LongPress/);
    assert.ok(records.some((r) => r.kind === 'result' && r.step === 1 && r.error && /^interrupted: the browser stopped Gnosis's background worker while this action ran/.test(r.text)), 'the step has its result');
    assert.doesNotMatch(JSON.stringify(records), /message channel|Receiving end/i);
    // The next task takes the tab.
    await runTask(panel, 'Go on');
    await panel.waitForSelector('#log li.outcome[data-outcome="finished"]', { timeout: 30_000 });
    assert.doesNotMatch(await panel.evaluate(() => document.body.innerText), /Another debugger is already attached/);
  } finally {
    await closeAll(panel);
  }
});
