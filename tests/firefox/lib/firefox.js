// Headless Firefox for end-to-end tests, driven over WebDriver BiDi (bidi.js):
// Debian's firefox-esr (never a downloaded browser) in a fresh profile under a
// temporary HOME, the extension installed from the source tree as a temporary
// add-on, and the real gnosis-host registered where Firefox looks on Linux
// (~/.mozilla/native-messaging-hosts) with the fake Munim as its provider.
//
//   const ff = await launchFirefox({ sites: [chat.origin], allow: ['computer.click'] });
//   const chat = await ff.newTab(url);
//   const options = await ff.openExtensionPage('bridge/options/options.html');
//   ...
//   await ff.close();
//
// How the pieces are reached (docs/firefox.md, "Testing"):
// - Extension pages cannot be navigated to over BiDi. The profile pins the
//   add-on's moz-extension UUID (extensions.webextensions.uuids), so a web page
//   can open the extension's web-accessible page, whose realm then opens any
//   extension page with tabs.create; those appear in browsingContext.getTree.
// - Host permissions are optional in the manifest and granted per site by
//   permissions.request from Start. Firefox needs a real user gesture for it
//   (a trusted click, input.performActions) and shows a prompt that automation
//   cannot answer; extensions.webextOptionalPermissionPrompts=false grants
//   the request without the prompt, still only from a user gesture.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { Bidi } from './bidi.js';
import { EXTENSION_DIR, HOST_NAME, fakeMunim, hostBinary, hostConfig, tempDir, testPolicy } from '../../e2e/lib/harness.js';
import { serve } from '../../e2e/lib/server.js';
import { hidingCommand, systemRegistrations } from './system_hosts.js';

/** The browser under test. */
export const FIREFOX = process.env.GNOSIS_FIREFOX || '/usr/bin/firefox-esr';
/** Fixed by browser_specific_settings.gecko.id in extension/manifest.json. */
export const ADDON_ID = 'gnosis@gnosis.dev';
/** The moz-extension UUID the test profile gives the add-on. */
export const ADDON_UUID = '6f1d0c3a-8b2e-4f57-9a61-3c0e5d7b9f24';
/** The extension's base URL in the test profile. */
export const EXTENSION_URL = `moz-extension://${ADDON_UUID}/`;
/** The extension page a web page may open (web_accessible_resources). */
const WEB_ACCESSIBLE = 'agent/frame/page_assistant_frame.html';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value; returns it. Generous on purpose: tests assert what happens, not how fast. */
export async function waitFor(fn, { timeoutMs = 30_000, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Writes what Firefox needs to start the host: a wrapper script carrying the
 * host's environment (Firefox starts the host with its own), and the manifest
 * in <home>/.mozilla/native-messaging-hosts with allowed_extensions.
 */
export function registerHost(home, { hostPath, configPath, dir }) {
  const wrapper = path.join(dir, 'gnosis-host-wrapper.sh');
  const vars = { GNOSIS_CONFIG: configPath, XDG_CACHE_HOME: path.join(dir, 'cache'), XDG_STATE_HOME: path.join(dir, 'state') };
  const exports = Object.entries(vars).map(([k, v]) => `export ${k}=${shellQuote(v)}`).join('\n');
  fs.writeFileSync(wrapper, `#!/bin/sh\n${exports}\nexec ${shellQuote(hostPath)} "$@"\n`, { mode: 0o755 });
  const manifestDir = path.join(home, '.mozilla', 'native-messaging-hosts');
  fs.mkdirSync(manifestDir, { recursive: true });
  fs.writeFileSync(path.join(manifestDir, `${HOST_NAME}.json`), JSON.stringify({
    name: HOST_NAME, description: 'Gnosis host (Firefox end-to-end test)', path: wrapper, type: 'stdio',
    allowed_extensions: [ADDON_ID],
  }, null, 2));
  return wrapper;
}

function shellQuote(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

/** The profile's preferences (user.js): quiet start-up, the pinned UUID, prompt-free optional permissions. */
function writePrefs(profile) {
  const prefs = {
    'extensions.webextensions.uuids': JSON.stringify({ [ADDON_ID]: ADDON_UUID }),
    'extensions.webextOptionalPermissionPrompts': false,
    'browser.shell.checkDefaultBrowser': false,
    'browser.startup.homepage_override.mstone': 'ignore',
    'browser.startup.page': 0,
    'datareporting.policy.dataSubmissionEnabled': false,
    'toolkit.telemetry.reportingpolicy.firstRun': false,
    'app.update.disabledForTesting': true,
    'browser.aboutwelcome.enabled': false,
    // Background services a test never uses, off as browser automation turns them off (each would
    // start work at every launch, or retry its network, which the test machine does not have).
    'app.normandy.enabled': false,
    'browser.safebrowsing.malware.enabled': false,
    'browser.safebrowsing.phishing.enabled': false,
    'browser.safebrowsing.downloads.enabled': false,
    'browser.safebrowsing.blockedURIs.enabled': false,
    'browser.search.update': false,
    'browser.newtabpage.enabled': false,
    'browser.startup.homepage': 'about:blank',
    'datareporting.healthreport.uploadEnabled': false,
    'toolkit.telemetry.enabled': false,
    'extensions.update.enabled': false,
    'extensions.getAddons.cache.enabled': false,
    'network.captive-portal-service.enabled': false,
    'network.connectivity-service.enabled': false,
    'services.settings.server': 'data:,#remote-settings-off',
    // No spare content process kept started ahead of a new tab.
    'dom.ipc.processPrelaunch.enabled': false,
    // Console messages of pages and of the extension go to stdout, which the
    // harness keeps with stderr for failure messages.
    'devtools.console.stdout.content': true,
    'devtools.console.stdout.chrome': true,
  };
  const lines = Object.entries(prefs).map(([k, v]) => `user_pref(${JSON.stringify(k)}, ${JSON.stringify(v)});`);
  fs.writeFileSync(path.join(profile, 'user.js'), lines.join('\n') + '\n');
}

/**
 * Starts Firefox with the extension and the host.
 * Options: sites (origins granted every `computer.*`), policy (a whole host
 * policy), host (false: register none), extensionDir (another build of the
 * extension, e.g. a copyExtension() with a compromised content script),
 * providers (more MCP servers for the host, beside the fake Munim).
 * Returns {bidi, newTab(url), openExtensionPage(path), page(context) helpers,
 * calls(), waitForCalls(n), stderr(), close()}.
 */
export async function launchFirefox({ sites = [], policy, host = true, extensionDir = EXTENSION_DIR, providers = [] } = {}) {
  const dir = tempDir('gnosis-firefox-');
  const home = path.join(dir, 'home');
  const profile = path.join(dir, 'profile');
  fs.mkdirSync(home);
  fs.mkdirSync(profile);
  writePrefs(profile);
  const callLog = path.join(dir, 'fakemunim.jsonl');
  if (host) {
    const configPath = path.join(dir, 'config.json');
    const config = hostConfig({ fakemunim: await fakeMunim(), log: callLog, policy: testPolicy({ policy, sites }), providers });
    fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
    registerHost(home, { hostPath: hostBinary(), configPath, dir });
  }

  // The machine's own system-wide registration (the .deb's) is hidden: the test's home is the only place found.
  const run = hidingCommand(FIREFOX, ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port=0'],
    systemRegistrations(), path.join(dir, 'no-system-hosts'));
  if (!run) throw new Error('cannot hide the system-wide Firefox host registration from the test (see system_hosts.js)');
  const proc = spawn(run.cmd, run.args, {
    env: { ...process.env, HOME: home, MOZ_CRASHREPORTER_DISABLE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.stdout.on('data', (d) => { stderr = (stderr + d).slice(-20_000); });
  const wsURL = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`firefox did not start BiDi within 30 s:\n${stderr}`)), 30_000);
    proc.stderr.on('data', (d) => {
      stderr = (stderr + d).slice(-20_000);
      const m = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(stderr);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`firefox exited (${code}):\n${stderr}`)); });
  });
  const bidi = await Bidi.connect(`${wsURL}/session`);
  await bidi.send('session.new', { capabilities: { alwaysMatch: { acceptInsecureCerts: true } } });
  const { extension } = await bidi.send('webExtension.install', { extensionData: { type: 'path', path: extensionDir } });
  if (extension !== ADDON_ID) throw new Error(`installed add-on ${extension}, want ${ADDON_ID}`);

  // A web page to open the web-accessible extension page from.
  const launcher = await serve({ routes: { '/': { body: '<!doctype html><title>launcher</title>' } } });
  const contexts = async () => (await bidi.send('browsingContext.getTree', {})).contexts;
  const [first] = await contexts();
  let firstFree = true;

  const ff = {
    bidi,
    dir,
    home,
    /** Opens url in a tab (the start-up tab first) and returns its page. */
    async newTab(url) {
      const context = firstFree ? first.context : (await bidi.send('browsingContext.create', { type: 'tab' })).context;
      firstFree = false;
      await bidi.send('browsingContext.navigate', { context, url, wait: 'complete' });
      return page(bidi, context);
    },
    /**
     * Opens an extension page (path relative to the extension, with query)
     * the way the extension itself would, and returns its page.
     */
    async openExtensionPage(rel) {
      const before = new Set((await contexts()).map((c) => c.context));
      const { context } = await bidi.send('browsingContext.create', { type: 'tab' });
      await bidi.send('browsingContext.navigate', { context, url: launcher.url('/'), wait: 'complete' });
      const helper = page(bidi, context);
      await helper.evaluate(`location.href = ${JSON.stringify(EXTENSION_URL + WEB_ACCESSIBLE)}`).catch(() => {});
      await waitFor(async () => (await contexts()).find((c) => c.context === context)?.url.startsWith(EXTENSION_URL),
        { what: 'the web-accessible extension page' });
      // Until the extension's document has replaced the launcher's, chrome is not defined there (typeof does not throw).
      await waitFor(() => helper.evaluate('typeof chrome !== "undefined" && typeof chrome.tabs?.create === "function"').catch(() => false), { what: 'extension APIs' });
      await helper.evaluate(`chrome.tabs.create({ url: chrome.runtime.getURL(${JSON.stringify(rel)}) }).then(() => true)`);
      await bidi.send('browsingContext.close', { context });
      const target = await waitFor(async () => (await contexts()).find((c) => !before.has(c.context) && c.url.startsWith(EXTENSION_URL + rel.split('?')[0])),
        { what: rel });
      const p = page(bidi, target.context);
      // The context's URL changes when the navigation starts: wait for the extension's own document, loaded,
      // with its APIs (evaluating meanwhile reaches the initial about:blank, or throws while it is replaced).
      const want = JSON.stringify(EXTENSION_URL + rel.split('?')[0]);
      await waitFor(() => p.evaluate(`location.href.startsWith(${want}) && document.readyState === "complete" && typeof chrome !== "undefined" && Boolean(chrome.runtime?.id)`).catch(() => false),
        { what: `${rel} loaded` });
      return p;
    },
    /** The calls fake Munim received. */
    calls() {
      if (!fs.existsSync(callLog)) return [];
      return fs.readFileSync(callLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
    /** Waits until fake Munim has recorded at least n calls; returns them. */
    waitForCalls(n, timeoutMs = 10_000) {
      return waitFor(() => { const c = ff.calls(); return c.length >= n && c; }, { timeoutMs, what: `${n} provider calls` });
    },
    stderr: () => stderr,
    async close() {
      await bidi.send('browser.close', {}).catch(() => {});
      bidi.close();
      await launcher.close();
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return ff;
}

/**
 * Arms a chat page from the options page as the suites do: the host
 * connected, the fields filled, Start clicked (a trusted click, which
 * permissions.request needs). Returns the options page (options: one already open).
 */
export async function armChat(ff, origin, { options: open } = {}) {
  const options = open || await ff.openExtensionPage(`bridge/options/options.html?origin=${encodeURIComponent(origin)}`);
  await waitFor(() => options.evaluate('document.body.dataset.ready !== undefined'), { what: 'options page ready' });
  await waitFor(async () => /connected/i.test(await options.text('#host-state')) && !/not connected|checking/i.test(await options.text('#host-state')), { what: 'host connected' });
  await options.fill('#source', '.assistant');
  await options.fill('#destination', '#prompt');
  await options.fill('#autoSend', true);
  await options.fill('#sendButton', '#send');
  await options.click('#start');
  await waitFor(async () => (await options.text('#armed-state'))?.startsWith('Armed'), { what: 'armed' });
  return options;
}

/**
 * A browsing context's helpers: evaluate(expression) → its value (promises
 * awaited), element(selector) → a shared reference, click(selector) → a
 * trusted click (input.performActions), type(text) → trusted keys,
 * fill(selector, value), text(selector).
 */
export function page(bidi, context) {
  const p = {
    context,
    /** Brings the tab to the front (background tabs' timers run at most once a second). */
    activate: () => bidi.send('browsingContext.activate', { context }),
    async evaluate(expression) {
      const r = await bidi.send('script.evaluate', {
        target: { context }, expression, awaitPromise: true, resultOwnership: 'none',
        serializationOptions: { maxObjectDepth: 20 },
      });
      if (r.type === 'exception') throw new Error(`${expression.slice(0, 80)}: ${r.exceptionDetails.text}`);
      return deserialize(r.result);
    },
    /** The element as a pointer action's origin, scrolled into view. */
    async origin(selector) {
      const r = await bidi.send('script.evaluate', {
        target: { context }, awaitPromise: false,
        expression: `(() => { const el = document.querySelector(${JSON.stringify(selector)}); el?.scrollIntoView({ block: 'center' }); return el; })()`,
      });
      if (r.result?.type !== 'node') throw new Error(`no element ${selector}`);
      return { type: 'element', element: { sharedId: r.result.sharedId } };
    },
    /**
     * A person's click on an approval button: the pointer comes in from the
     * page's edge in steps (a 400 ms move), rests, then clicks.
     */
    deliberateClick(selector) {
      return p.click(selector, { deliberate: true });
    },
    async click(selector, { deliberate = false } = {}) {
      const origin = await p.origin(selector);
      const moves = deliberate
        ? [{ type: 'pointerMove', x: 2, y: 2, origin: 'viewport' }, { type: 'pointerMove', x: 0, y: 0, origin, duration: 400 }, { type: 'pause', duration: 250 }]
        : [{ type: 'pointerMove', x: 0, y: 0, origin }];
      await bidi.send('input.performActions', {
        context,
        actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [
          ...moves,
          { type: 'pointerDown', button: 0 },
          { type: 'pointerUp', button: 0 },
        ] }],
      });
      // A click that closes its own window (an approval's Allow) leaves no context to release.
      await bidi.send('input.releaseActions', { context }).catch((e) => {
        if (!/no such frame/.test(e.message)) throw e;
      });
    },
    /** Types text into the focused element with the keyboard (trusted key events); "\n" presses Enter. */
    async type(text) {
      const keys = [...text].map((c) => (c === '\n' ? '\uE007' : c));
      await bidi.send('input.performActions', {
        context,
        actions: [{ type: 'key', id: 'keyboard', actions: keys.flatMap((value) => [{ type: 'keyDown', value }, { type: 'keyUp', value }]) }],
      });
      await bidi.send('input.releaseActions', { context });
    },
    /** Sets a form control the way typing would end: value, then input and change events. */
    fill(selector, value) {
      return p.evaluate(`(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        if (el.type === 'checkbox') el.checked = ${JSON.stringify(Boolean(value))};
        else el.value = ${JSON.stringify(String(value))};
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return true;
      })()`);
    },
    text(selector) {
      return p.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);
    },
  };
  return p;
}

/** Turns a BiDi remote value into a plain JSON value. */
function deserialize(v) {
  switch (v?.type) {
    case 'undefined': case 'null': return null;
    case 'string': case 'number': case 'boolean': return v.value;
    case 'array': return v.value.map(deserialize);
    case 'object': return Object.fromEntries(v.value.map(([k, val]) => [typeof k === 'string' ? k : deserialize(k), deserialize(val)]));
    default: return v;
  }
}

/**
 * Forgets a site's saved settings, as a fresh profile has none: the
 * evaluate text for an extension page. They live in the trusted store (the
 * extension origin's IndexedDB "gnosis-trusted", extension/shared/trusted_store.js);
 * a copy in storage.local from before it would be adopted, so it goes too.
 */
export function forgetSiteScript(origin) {
  const key = JSON.stringify(`site:${origin}`);
  return `Promise.all([chrome.storage.local.remove(${key}), new Promise((resolve, reject) => {
    const req = indexedDB.open('gnosis-trusted', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('values');
    req.onerror = () => reject(req.error);
    req.onsuccess = () => {
      const tx = req.result.transaction('values', 'readwrite');
      tx.objectStore('values').delete(${key});
      tx.oncomplete = () => { req.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
  })]).then(() => true)`;
}

