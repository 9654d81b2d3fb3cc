// Package-level harness for the end-to-end tests: the real extension in
// Debian's Chromium (new headless mode, driven by playwright-core with no
// browser download), the real gnosis-host registered in the test's own
// user-data-dir, and the fake Munim as its provider.
//
// Every test file (the chat bridge's and the browser agent's) launches through
// here so the recipe lives in one place:
//
//   const env = await launch({ grantOrigins: ['http://127.0.0.1/*'] });
//   const options = await env.openOptions();
//   ...
//   await env.close();
//
// Facts behind the recipe: ../../../../shared/notes/chromium-e2e-facts.md and
// native-messaging-facts.md ("Headless Chromium in tests").
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { TEST_ACKS_KEY } from '../../../extension/bridge/core/judge.js';

/** Repository root (…/tests/e2e/lib → …). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The unpacked extension directory. */
export const EXTENSION_DIR = path.join(REPO, 'extension');
/** Fixed by the key in extension/manifest.json. */
export const EXTENSION_ID = 'mbegimjagonemgohdcndepbpfbmlmgdd';
/** The extension's origin as Chromium hands it to the host (argv[1]). */
export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}/`;
/** The page the extension opens when it is installed. */
export const SETUP_PAGE = 'bridge/setup/setup.html';
/** Native messaging host name. */
export const HOST_NAME = 'com.gnosis.host';
/** The browser under test (never a downloaded one). */
export const CHROMIUM = process.env.GNOSIS_CHROMIUM || '/usr/bin/chromium';

// The temporary folders this test file made go when its process ends, so
// repeated runs leave nothing behind in the system's temporary folder.
const made = [];
process.on('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** Makes a fresh temporary directory, removed when the test process ends (a launch's own, at close()). */
export function tempDir(prefix = 'gnosis-e2e-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Path of the host binary. `make test-e2e` builds it first; when a test file is
 * run on its own and bin/gnosis-host is missing, it is built here.
 */
export function hostBinary() {
  const bin = path.join(REPO, 'bin', 'gnosis-host');
  if (!fs.existsSync(bin)) {
    execFileSync('go', ['build', '-o', bin, './cmd/gnosis-host'], { cwd: REPO, stdio: 'inherit' });
  }
  return bin;
}

let fakeMunimPath;
/**
 * The fake Munim (tests/fakemunim) binary. make test-e2e builds it once for
 * every test file and names it in GNOSIS_FAKEMUNIM (linking it again in each
 * file's process cost about a CPU-second each); a file run on its own builds
 * it once per process into a temporary directory.
 */
export async function fakeMunim() {
  const prebuilt = process.env.GNOSIS_FAKEMUNIM;
  if (prebuilt) {
    if (!fs.existsSync(prebuilt)) throw new Error(`GNOSIS_FAKEMUNIM=${prebuilt} does not exist: unset it, or build it with go build -o ${prebuilt} ./tests/fakemunim`);
    return prebuilt;
  }
  if (fakeMunimPath && fs.existsSync(fakeMunimPath)) return fakeMunimPath;
  const out = path.join(tempDir('gnosis-fakemunim-'), 'fakemunim');
  execFileSync('go', ['build', '-o', out, './tests/fakemunim'], { cwd: REPO, stdio: 'inherit' });
  fakeMunimPath = out;
  return out;
}

/**
 * The host configuration for a test: one fake Munim under `prefix` that logs
 * every call to `log`, any further `providers`, plus an optional per-origin
 * `policy` (README "Configuration"; the host denies every origin everything
 * it is not granted). Extra top-level fields can be merged through `extra`.
 */
export function hostConfig({ fakemunim, log, prefix = 'computer', policy, env = {}, extra = {}, providers = [] }) {
  const config = {
    providers: [{
      name: 'munim', command: fakemunim, args: [], prefix, timeout: '30s',
      env: { FAKEMUNIM_LOG: log, ...env },
    }, ...providers],
    log: { level: 'debug' },
    ...extra,
  };
  if (policy) config.policy = policy;
  return config;
}

/**
 * The policy a test's host runs with: `policy` as given, with `sites` (origins
 * of the test's pages) each granted every capability of `prefix` in its own
 * entry, and `askTimeout` when set. No "default" grant: an origin a test does
 * not name may run nothing, as with a real user's host.
 */
export function testPolicy({ policy, sites = [], prefix = 'computer', askTimeout } = {}) {
  if (!policy && !sites.length && !askTimeout) return undefined;
  const out = { ...(policy || {}), origins: { ...(policy?.origins || {}) } };
  for (const site of sites) out.origins[site] ??= [`${prefix}.*`];
  if (askTimeout) out.askTimeout = askTimeout;
  return out;
}

/** The MCP server of tests/e2e/fixtures/annotated_mcp.mjs as a provider under `prefix`, logging calls to `log`. */
export function annotatedProvider({ log, prefix = 'notes' }) {
  return {
    name: 'notes', command: process.execPath, args: [path.join(REPO, 'tests', 'e2e', 'fixtures', 'annotated_mcp.mjs')],
    prefix, timeout: '30s', env: { ANNOTATED_LOG: log },
  };
}

/** Reads a JSON-lines file (a provider's call log); [] when it does not exist yet. */
export function readJsonl(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/**
 * Where tests save screenshots of what they show a person: $GNOSIS_E2E_SHOTS,
 * or <tmp>/gnosis-e2e-shots. Files are named <name>.png and replaced each run.
 */
export function screenshotDir() {
  const dir = process.env.GNOSIS_E2E_SHOTS || path.join(os.tmpdir(), 'gnosis-e2e-shots');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Saves a PNG of page as <screenshotDir()>/<name>.png and, with
 * GNOSIS_UPDATE_IMAGES=1, as docs/images/<name>.png (the README's pictures);
 * throws when it is over 200 KiB. Returns its path.
 */
export async function picture(page, name) {
  const file = path.join(screenshotDir(), `${name}.png`);
  await page.screenshot({ path: file });
  const size = fs.statSync(file).size;
  if (size > 200 * 1024) throw new Error(`${name}.png is ${size} bytes, over 200 KiB`);
  if (process.env.GNOSIS_UPDATE_IMAGES === '1') {
    fs.mkdirSync(path.join(REPO, 'docs', 'images'), { recursive: true });
    fs.copyFileSync(file, path.join(REPO, 'docs', 'images', `${name}.png`));
  }
  return file;
}

/**
 * Writes everything Chromium needs to start the host for this profile:
 * a wrapper script carrying the host's environment (the browser starts the
 * host with its own environment) and the manifest in
 * <userDataDir>/NativeMessagingHosts/com.gnosis.host.json.
 * Returns the wrapper's path.
 */
export function registerHost(userDataDir, { hostPath, configPath, dir, allowedOrigins = [EXTENSION_ORIGIN], env = {} }) {
  const wrapper = path.join(dir, 'gnosis-host-wrapper.sh');
  const vars = {
    GNOSIS_CONFIG: configPath,
    XDG_CACHE_HOME: path.join(dir, 'cache'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_STATE_HOME: path.join(dir, 'state'),
    ...env,
  };
  const exports = Object.entries(vars).map(([k, v]) => `export ${k}=${shellQuote(String(v))}`).join('\n');
  fs.writeFileSync(wrapper, `#!/bin/sh\n${exports}\nexec ${shellQuote(hostPath)} "$@"\n`, { mode: 0o755 });
  const manifestDir = path.join(userDataDir, 'NativeMessagingHosts');
  fs.mkdirSync(manifestDir, { recursive: true });
  fs.writeFileSync(path.join(manifestDir, `${HOST_NAME}.json`), JSON.stringify({
    name: HOST_NAME,
    description: 'Gnosis host (end-to-end test)',
    path: wrapper,
    type: 'stdio',
    allowed_origins: allowedOrigins,
  }, null, 2));
  return wrapper;
}

function shellQuote(s) {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Seeds <userDataDir>/Default/Preferences before launch: grants the
 * extension's optional host permissions for `grantOrigins` (match patterns such
 * as 'http://127.0.0.1/*'; permission prompts never settle in automation) and
 * sets a download directory without prompting. `extra` is merged in at the top.
 */
export function seedPreferences(userDataDir, { grantOrigins = [], downloadDir, extra = {} } = {}) {
  const perms = { api: [], explicit_host: grantOrigins, manifest_permissions: [], scriptable_host: [] };
  const prefs = {
    extensions: { settings: { [EXTENSION_ID]: { active_permissions: perms, granted_permissions: perms } } },
    ...extra,
  };
  if (downloadDir) prefs.download = { default_directory: downloadDir, prompt_for_download: false };
  fs.mkdirSync(path.join(userDataDir, 'Default'), { recursive: true });
  fs.writeFileSync(path.join(userDataDir, 'Default', 'Preferences'), JSON.stringify(prefs));
}

/**
 * Whether /dev/shm is too small for Chromium's shared memory. Playwright starts Chromium with
 * --disable-dev-shm-usage, for containers whose /dev/shm holds 64 MB; Chromium then keeps every
 * shared-memory buffer (each frame, each large message such as a screenshot) in a file under /tmp,
 * which on a disk costs page-cache and write-back work: about a tenth of a file's CPU on this machine
 * (docs/benchmarks.md#make-test). The switch stays only where /dev/shm is small.
 */
const SMALL_DEV_SHM = (() => {
  try {
    const s = fs.statfsSync('/dev/shm');
    return s.bavail * s.bsize < 1024 ** 3;
  } catch {
    return true;
  }
})();

/**
 * Launches Chromium with the extension and, unless `host: false`, the host
 * registered against a fresh fake Munim.
 *
 * Options:
 *   grantOrigins  optional host permissions to pre-grant (match patterns)
 *   policy        host config policy ({default, origins, askTimeout})
 *   sites         origins of the test's pages: each may run every computer.* capability (its own policy entry)
 *   askTimeout    policy.askTimeout ("2s")
 *   notes         true: also run the annotated MCP server under "notes" (calls in env.notesCalls())
 *   providers     more MCP servers for the host, beside the fake Munim (host provider entries)
 *   config        a whole host config object (replaces the generated one)
 *   host          false: register no host (HOST_NOT_FOUND paths)
 *   hostPath      the host executable (default bin/gnosis-host)
 *   hostEnv       extra environment for the host process
 *   providerEnv   extra environment for the fake Munim (FAKEMUNIM_STATE, …)
 *   allowedOrigins  the manifest's allowed_origins (default: our extension)
 *   downloadDir   seed a download directory (and default download behaviour)
 *   prefs         extra Preferences to merge
 *   extensionDir  load the extension from here (e.g. a copy with extra files; see copyExtension);
 *                 default $GNOSIS_E2E_EXTENSION (another build of the extension, e.g. an older
 *                 commit's, to see a test fail on it), else extension/
 *   display       an X display (":99"): Chromium runs headed there instead of headless
 *   setupPage     true: keep the setup page the extension opens on install (env.setupPage);
 *                 otherwise launch waits for it and closes it, so no tab appears later
 *
 * Returns an Env: {context, userDataDir, dir, callLog, configPath, worker(),
 * evalInWorker(fn, arg), openOptions(query), newPage(url), calls(),
 * waitForCalls(n), config(), notesCalls(), screenshot(target, name), restart(), close()}.
 */
export async function launch(opts = {}) {
  const dir = tempDir();
  const userDataDir = path.join(dir, 'profile');
  fs.mkdirSync(userDataDir);
  const callLog = path.join(dir, 'fakemunim.jsonl');
  const configPath = path.join(dir, 'gnosis-config.json');
  const notesLog = path.join(dir, 'notes.jsonl');
  seedPreferences(userDataDir, { grantOrigins: opts.grantOrigins, downloadDir: opts.downloadDir, extra: opts.prefs });

  if (opts.host !== false) {
    const config = opts.config || hostConfig({
      fakemunim: await fakeMunim(), log: callLog, env: opts.providerEnv,
      policy: testPolicy({ policy: opts.policy, sites: opts.sites, askTimeout: opts.askTimeout }),
      providers: [...(opts.notes ? [annotatedProvider({ log: notesLog })] : []), ...(opts.providers || [])],
    });
    fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
    registerHost(userDataDir, {
      hostPath: opts.hostPath || hostBinary(), configPath, dir,
      allowedOrigins: opts.allowedOrigins, env: opts.hostEnv,
    });
  }

  const launchOptions = {
    // Through a launcher that joins the --disable-features lists (lib/chromium_features.sh).
    executablePath: path.join(REPO, 'tests', 'e2e', 'lib', 'chromium_features.sh'),
    env: { ...process.env, GNOSIS_CHROMIUM_BINARY: CHROMIUM, ...(opts.display ? { DISPLAY: opts.display } : {}) },
    // display: headed, on that X display (an Xvfb of lib/desktop.js), where real pointer input reaches the
    // windows, each at its own size (no viewport emulation, which would resize the approval window).
    headless: !opts.display,
    ...(opts.display ? { viewport: null } : {}),
    ignoreDefaultArgs: ['--disable-extensions', ...(SMALL_DEV_SHM ? [] : ['--disable-dev-shm-usage'])],
    args: [
      `--disable-extensions-except=${opts.extensionDir || process.env.GNOSIS_E2E_EXTENSION || EXTENSION_DIR}`,
      `--load-extension=${opts.extensionDir || process.env.GNOSIS_E2E_EXTENSION || EXTENSION_DIR}`,
      '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
      '--silent-debugger-extension-api',
      // Headless Chromium builds the omnibox popup's WebUI pages at every start (two renderers,
      // about 2 CPU-seconds a launch on the 2-core machine) for an address bar no test can see.
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI',
      ...(opts.args || []),
    ],
  };
  let context = await chromium.launchPersistentContext(userDataDir, launchOptions);
  // Installing the extension opens its setup page (bridge/setup/setup.html): wait for it, so it
  // never opens in the middle of a test, and keep it only for the tests of that page. A restart
  // (same profile) installs nothing, so no setup page opens then.
  const isSetup = (p) => p.url().startsWith(`${EXTENSION_ORIGIN}${SETUP_PAGE}`);
  const setupPage = context.pages().find(isSetup) || await context.waitForEvent('page', { predicate: isSetup, timeout: 15_000 });
  if (!opts.setupPage) await setupPage.close();
  if (opts.downloadDir) {
    const cdp = await context.browser()?.newBrowserCDPSession?.();
    if (cdp) await cdp.send('Browser.setDownloadBehavior', { behavior: 'default' });
  }

  const env = {
    context, dir, userDataDir, callLog, configPath, notesLog, setupPage: opts.setupPage ? setupPage : null,
    /** The host's config file as it is now (policy.set rewrites it). */
    config() {
      return JSON.parse(fs.readFileSync(configPath, 'utf8'));
    },
    /** Calls the annotated MCP server recorded (launch({notes: true})). */
    notesCalls() {
      return readJsonl(notesLog);
    },
    /** Saves a PNG of page (or of one locator) as <screenshotDir()>/<name>.png; returns its path. */
    async screenshot(target, name) {
      const file = path.join(screenshotDir(), `${name}.png`);
      await target.screenshot({ path: file });
      return file;
    },
    /** The extension's service worker (waits for it to start). */
    async worker() {
      const found = context.serviceWorkers().find((w) => w.url().startsWith(EXTENSION_ORIGIN));
      if (found) return found;
      return context.waitForEvent('serviceworker', {
        predicate: (w) => w.url().startsWith(EXTENSION_ORIGIN), timeout: 10_000,
      });
    },
    /** Runs fn(arg) inside the service worker and returns its (serialisable) value. */
    async evalInWorker(fn, arg) {
      return (await env.worker()).evaluate(fn, arg);
    },
    /** Opens an extension page (default bridge/options/options.html) in a new tab. */
    async openExtensionPage(file = 'bridge/options/options.html', query = '') {
      await env.worker();
      const page = await context.newPage();
      await page.goto(`${EXTENSION_ORIGIN}${file}${query}`);
      return page;
    },
    openOptions(query = '') {
      return env.openExtensionPage('bridge/options/options.html', query);
    },
    /** Opens url in a new tab. */
    async newPage(url) {
      const page = await context.newPage();
      if (url) await page.goto(url);
      return page;
    },
    /** Every call fake Munim has recorded so far: [{tool, arguments, ...}]. */
    calls() {
      if (!fs.existsSync(callLog)) return [];
      return fs.readFileSync(callLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    },
    /** Waits until fake Munim has recorded at least n calls; returns them. */
    async waitForCalls(n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const calls = env.calls();
        if (calls.length >= n) return calls;
        if (Date.now() > deadline) throw new Error(`expected ${n} provider calls, got ${JSON.stringify(calls)}`);
        await sleep(50);
      }
    },
    /**
     * Restarts the browser: closes it (the host exits with it) and launches it
     * again on the same user-data-dir, as a person quitting and reopening it.
     * storage.local and the host's config survive; storage.session does not.
     */
    async restart() {
      await context.close();
      context = await chromium.launchPersistentContext(userDataDir, launchOptions);
      env.context = context;
      await askForAcks();
    },
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  // The bridge acknowledges its verdicts in storage.session only when a test asks (lib/bridge.js judged()).
  const askForAcks = () => env.evalInWorker((key) => chrome.storage.session.set({ [key]: true }), TEST_ACKS_KEY);
  await askForAcks();
  return env;
}

/**
 * Copies the unpacked extension into a temporary directory (the fixed key
 * keeps its id), optionally adding files: {'hostbin/x': Buffer|string}.
 * Returns the copy's path; the caller removes it.
 */
export function copyExtension(files = {}) {
  const dir = path.join(tempDir('gnosis-ext-'), 'extension');
  fs.cpSync(EXTENSION_DIR, dir, { recursive: true, filter: (src) => !src.includes(`${path.sep}test${path.sep}`) && !src.endsWith(`${path.sep}test`) });
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), body, { mode: 0o755 });
  }
  return dir;
}

/**
 * Waits until page (or frame) is laid out at its new size: its window is width wide, and two
 * animation frames have passed since (the layout and paint of that size are done).
 */
export async function laidOut(page, width) {
  await page.waitForFunction((w) => innerWidth === w, width);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Polls fn until it returns a truthy value (returned) or timeoutMs passes (throws with `what`). */
export async function waitFor(fn, { timeoutMs = 20_000, intervalMs = 50, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last?.message || JSON.stringify(last)})`);
    await sleep(intervalMs);
  }
}
