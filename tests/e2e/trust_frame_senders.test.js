// Only the extension's own pages send the privileged messages (issue 29
// item 3). The Page Assistant's frame is web-accessible, so a page can place
// it where no content script put it: inside an about:blank popup it opened,
// or in a blob: tab it built. The attack here is the page's: it opens each,
// embeds the frame, and the test speaks from inside that frame (a page cannot
// run code there; a flaw in the frame could). Every privileged message
// (providers, policy, setup, remembered choices, activity, the agent's and
// the host's ports) is refused, its own messages are refused without the
// token, and the host's config is untouched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EXTENSION_ORIGIN, launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';

const FRAME_URL = `${EXTENSION_ORIGIN}agent/frame/page_assistant_frame.html`;
const ATTACK = `<!doctype html><meta charset="utf-8"><title>attack</title>
<button id="popup">popup</button> <button id="blob">blob</button>
<script>
const FRAME = ${JSON.stringify(FRAME_URL)};
document.getElementById('popup').onclick = () => {
  const w = window.open('about:blank', '_blank', 'popup,width=500,height=400');
  const f = w.document.createElement('iframe');
  f.src = FRAME;
  w.document.body.appendChild(f);
};
document.getElementById('blob').onclick = () => {
  const html = '<!doctype html><title>blob tab</title><iframe src="' + FRAME + '"></iframe>';
  window.open(URL.createObjectURL(new Blob([html], { type: 'text/html' })), '_blank');
};
</script>`;

const PRIVILEGED = [
  { type: 'bridge.providers' },
  { type: 'bridge.setProvider', provider: { name: 'evil', command: '/bin/sh', args: ['-c', 'touch /tmp/pwned'] } },
  { type: 'bridge.removeProvider', name: 'computer' },
  { type: 'bridge.diagnosticReport' },
  { type: 'bridge.getDownloadLocation' },
  { type: 'bridge.setDownloadLocation', location: 'https://evil.example/' },
  { type: 'bridge.getGrants', origin: 'http://127.0.0.1' },
  { type: 'bridge.setGrants', origin: 'https://evil.example', grants: { allow: ['computer.*'] } },
  { type: 'bridge.start', origin: 'https://evil.example', grants: { allow: ['computer.*'] } },
  { type: 'bridge.hostStatus' },
  { type: 'bridge.remembered', origin: 'https://evil.example' },
  { type: 'bridge.forgetChoices', origin: 'https://evil.example' },
  { type: 'bridge.approve', token: 'x', allow: true },
  { type: 'activity.list' },
  { type: 'activity.clear' },
  { type: 'activity.task', entry: { task: 'forged' } },
  { type: 'agent.attach', sessionId: 'x' },
];

let env;
let site;
let page;
before(async () => {
  site = await serve({ routes: { '/attack.html': { body: ATTACK } } });
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'] });
  page = await env.newPage(site.url('/attack.html'));
});
after(async () => {
  await env?.close();
  await site?.close();
});

/** Opens the page's popup or tab by a click on its button, and returns the frame the page placed in it. */
async function placedFrame(button) {
  const opened = env.context.waitForEvent('page', { timeout: 10_000 });
  await page.click(button);
  const tab = await opened;
  const frame = await waitFor(() => tab.frames().find((f) => f.url().startsWith(FRAME_URL)), { what: `the frame in the ${button} page` });
  await frame.waitForLoadState('load');
  return { tab, frame };
}

/** What the worker answers the frame for every privileged message, and whether each port stays open. */
function attackFromFrame(frame, messages) {
  return frame.evaluate(async (list) => {
    const replies = [];
    for (const m of list) replies.push(await chrome.runtime.sendMessage(m).catch((e) => ({ thrown: String(e) })));
    const portFate = (name) => new Promise((resolve) => {
      const port = chrome.runtime.connect({ name });
      port.onMessage.addListener((m) => resolve({ name, answered: m }));
      port.onDisconnect.addListener(() => resolve({ name, disconnected: true }));
      port.postMessage(name === 'agent' ? { type: 'hello', sessionId: 'evil', windowId: 1 } : { id: 1, method: 'health', params: {} });
      setTimeout(() => resolve({ name, open: true }), 3000);
    });
    const ports = [await portFate('agent'), await portFate('agent-host')];
    const own = await chrome.runtime.sendMessage({ type: 'agent.pageTask', task: 'from a frame the page placed' });
    return { replies, ports, own };
  }, messages);
}

for (const [button, where] of [['#popup', 'an about:blank popup'], ['#blob', 'a blob: tab']]) {
  test(`the Page Assistant's frame the page placed in ${where} gets no privileged message, no agent or host port, and not its own messages`, async () => {
    const before = JSON.stringify(env.config());
    const { tab, frame } = await placedFrame(button);
    try {
      const got = await attackFromFrame(frame, PRIVILEGED);
      for (const [i, r] of got.replies.entries()) {
        assert.deepEqual(r, { ok: false, error: `${PRIVILEGED[i].type} is not accepted from frame` }, PRIVILEGED[i].type);
      }
      assert.deepEqual(got.ports, [{ name: 'agent', disconnected: true }, { name: 'agent-host', disconnected: true }]);
      assert.equal(got.own.ok, false);
      assert.match(got.own.error, /not placed by Gnosis/);
      assert.equal(JSON.stringify(env.config()), before, 'the host\'s config is untouched');
      const acts = await env.evalInWorker(async () => JSON.stringify(await chrome.storage.local.get(null)));
      assert.doesNotMatch(acts, /forged|evil\.example/);
    } finally {
      await tab.close();
    }
  });
}

test('the extension\'s own page still gets the same messages', async () => {
  const options = await env.openOptions();
  const r = await options.evaluate(() => chrome.runtime.sendMessage({ type: 'bridge.providers' }));
  assert.equal(r.ok, true, JSON.stringify(r));
  await options.close();
});
