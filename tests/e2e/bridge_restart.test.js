// A call never ends in silence: when the extension's service worker stops
// (as Chrome stops it on an update, a crash or memory pressure; here CDP's
// ServiceWorker.stopAllWorkers) or the host process dies while a 4 s call
// runs on the desktop, the chat gets, once, a reply the model can read
// saying the call was interrupted and may have run, the badge and the options
// page say so too, the page stays armed, and the next call runs (the host
// waits for its provider to start rather than refusing the call).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { armFromOptions, badgeText, waitForSent } from './lib/bridge.js';

let env;
let site;
let state;

before(async () => {
  site = await serve();
  state = fs.mkdtempSync('/tmp/gnosis-restart-');
  env = await launch({ grantOrigins: ['http://127.0.0.1/*'], sites: [site.origin], providerEnv: { FAKEMUNIM_STATE: state } });
});

after(async () => {
  await env?.close();
  await site?.close();
  fs.rmSync(state, { recursive: true, force: true });
});

/** The pids of this test's gnosis-host processes (found by the configuration they were started with). */
function hostPids() {
  const pids = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      const exe = fs.readlinkSync(`/proc/${pid}/exe`);
      if (path.basename(exe) === 'gnosis-host' && environ.split('\0').includes(`GNOSIS_CONFIG=${env.configPath}`)) pids.push(Number(pid));
    } catch {
      // gone, or not ours
    }
  }
  return pids;
}

const slow = (tag) => JSON.stringify({ capability: 'computer.slow', arguments: { ms: 4000, tag } });
const echo = (n) => JSON.stringify({ capability: 'computer.echo', arguments: { after: n } });

describe('interrupted calls', () => {
  let chat;
  let options;
  const url = () => site.url('/chat.html');

  before(async () => {
    chat = await env.newPage(url());
    options = await armFromOptions(env, { source: '.assistant', destination: '#prompt', autoSend: true, sendButton: '#send', debounceMs: 300 });
  });

  /** Streams a 4 s call and waits until it runs on the (fake) desktop. */
  async function startSlow(tag) {
    await chat.evaluate((c) => window.chat.stream(c), slow(tag));
    await waitFor(() => fs.existsSync(path.join(state, `${tag}.started`)), { what: `${tag} running on the desktop`, timeoutMs: 15_000 });
  }

  /** The next call runs and its result is sent, once. */
  async function nextCallRuns(n, sentBefore) {
    await chat.evaluate((c) => window.chat.stream(c), echo(n));
    const replies = await waitForSent(chat, sentBefore + 1, 20_000);
    const reply = JSON.parse(replies.at(-1));
    assert.equal(reply.ok, true, replies.at(-1));
    assert.equal(env.calls().filter((c) => c.tool === 'echo' && c.arguments.after === n).length, 1);
  }

  test('the worker stops during a call: the chat says once that it was interrupted and may have run; the page stays armed and the next call runs', async () => {
    const sentBefore = (await chat.evaluate(() => window.chat.sent)).length;
    await startSlow('worker');
    const cdp = await env.context.newCDPSession(options);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');

    const [said] = (await waitForSent(chat, sentBefore + 1, 15_000)).slice(sentBefore);
    const reply = JSON.parse(said);
    assert.deepEqual([reply.ok, reply.code, reply.capability, reply.interrupted, reply.mayHaveRun], [false, 'HOST_DISCONNECTED', 'computer.slow', true, true]);
    assert.match(reply.message, /computer\.slow was interrupted: the browser extension's worker stopped while it ran\. It may have run on the desktop/);
    assert.match(await chat.locator('gnosis-notice [role=alert]').textContent(), /worker stopped while computer\.slow was running; it may have run on the desktop/);
    await waitFor(async () => (await badgeText(env, url())) === '!', { what: 'the error badge' });
    await waitFor(async () => /Last: interrupted: the extension's worker stopped while computer\.slow was running/.test(await options.locator('#last-event').textContent()), { what: 'the options page says it' });
    assert.equal(await env.evalInWorker((o) => chrome.storage.session.get('armed').then((s) => !!s.armed?.[o]), site.origin), true, 'still armed');

    await nextCallRuns(1, sentBefore + 1);
    assert.equal((await chat.evaluate(() => window.chat.sent)).filter((s) => s.includes('interrupted')).length, 1, 'said once');
  });

  test('the host dies during a call: the chat says the call was interrupted and may have run; the next call runs on a new host', async () => {
    const sentBefore = (await chat.evaluate(() => window.chat.sent)).length;
    await startSlow('host');
    const pids = hostPids();
    assert.equal(pids.length, 1, `one host process: ${pids}`);
    process.kill(pids[0], 'SIGKILL');

    const [said] = (await waitForSent(chat, sentBefore + 1, 15_000)).slice(sentBefore);
    const reply = JSON.parse(said);
    assert.deepEqual([reply.ok, reply.code, reply.capability, reply.interrupted, reply.mayHaveRun], [false, 'HOST_EXITED', 'computer.slow', true, true]);
    assert.match(reply.message, /^computer\.slow was interrupted: .*It may have run on the desktop/);
    await waitFor(async () => (await badgeText(env, url())) === '!', { what: 'the error badge' });

    await nextCallRuns(2, sentBefore + 1);
    assert.notDeepEqual(hostPids(), pids, 'a new host answered');
    assert.equal((await chat.evaluate(() => window.chat.sent)).filter((s) => s.includes('interrupted')).length, 2, 'said once for this call');
  });
});
