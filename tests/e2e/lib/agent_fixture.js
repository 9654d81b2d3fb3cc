// Shared pieces of the browser agent's end-to-end tests: the target page the
// scripted model plays on, and helpers to drive the Side Panel (opened as an
// ordinary extension tab) against it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { laidOut, launch, waitFor } from './harness.js';
import { startModelServer } from './model_server.js';
import { serve } from './server.js';

/**
 * The usual set-up of an agent test file: a site serving routes, the
 * scripted model server, and Chromium with the extension (no host unless
 * launchOptions say so), started before the file's tests and closed after.
 * Returns {env, site, model, play}: set play(request) to script the model.
 */
export function agentSuite({ routes = {}, launchOptions = {} } = {}) {
  const suite = { env: null, site: null, model: null, play: () => ({ status: 500, body: 'no script' }) };
  before(async () => {
    suite.site = await serve({ routes });
    suite.model = await startModelServer((r) => suite.play(r));
    suite.env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*'], ...launchOptions });
  });
  after(async () => {
    await suite.env?.close();
    await suite.site?.close();
    await suite.model?.close();
  });
  return suite;
}

/**
 * Saves a PNG of the panel (narrowed to a side panel's width) as
 * <dir>/agent_<name>.png, dir being $GNOSIS_E2E_SHOTS or <tmp>/gnosis-e2e-shots;
 * returns its path.
 */
export async function shootPanel(panel, name, { width = 420, height = 720 } = {}) {
  const dir = process.env.GNOSIS_E2E_SHOTS || path.join(os.tmpdir(), 'gnosis-e2e-shots');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `agent_${name}.png`);
  const before = panel.viewportSize();
  await panel.setViewportSize({ width, height });
  await laidOut(panel, width);
  await panel.screenshot({ path: file });
  if (before) await panel.setViewportSize(before);
  return file;
}

/** The page the agent works on: every interaction is logged in window.events. */
export const TARGET_HTML = `<!doctype html>
<html><head><title>Agent target</title><style>
body { margin: 0; font: 16px sans-serif; }
#go { position: absolute; left: 300px; top: 120px; width: 160px; height: 50px; }
#name { position: absolute; left: 300px; top: 220px; width: 240px; height: 30px; }
#color { position: absolute; left: 300px; top: 300px; width: 200px; height: 30px; }
#far { position: absolute; left: 500px; top: 900px; width: 160px; height: 50px; }
#spacer { height: 3000px; }
</style></head><body>
<button id="go">Press me</button>
<input id="name" placeholder="Name">
<select id="color"><option value="">choose a colour</option><option value="red">Red</option><option value="blue">Blue</option></select>
<button id="far">Far button</button>
<div id="spacer"></div>
<script>
window.events = [];
const log = (s) => window.events.push(s);
document.getElementById('go').addEventListener('click', (e) => log('go:' + e.isTrusted + ':' + e.clientX + ',' + e.clientY));
document.getElementById('name').addEventListener('input', (e) => log('name:' + e.target.value));
document.getElementById('color').addEventListener('change', (e) => log('color:' + e.target.value));
document.getElementById('far').addEventListener('click', (e) => log('far:' + e.isTrusted));
</script></body></html>`;

/** Centre of an element in CSS pixels of the viewport. */
export function centerOf(page, selector) {
  return page.evaluate((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }, selector);
}

/**
 * Opens the side panel as a tab and, from it, the target page as another tab of
 * the same window (the agent targets the most recently used web tab there).
 * Returns {panel, target}.
 */
export async function openPanelAndTarget(env, targetUrl) {
  const panel = await env.openExtensionPage('agent/panel/sidepanel.html');
  await panel.waitForSelector('body[data-ready="true"]');
  const pagePromise = env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(targetUrl.split('?')[0]) || p.url() === 'about:blank' });
  await panel.evaluate(async (url) => {
    const w = await chrome.windows.getCurrent();
    const t = await chrome.tabs.create({ url, windowId: w.id, active: true });
    await chrome.tabs.update((await chrome.tabs.getCurrent()).id, { active: true });
    return t.id;
  }, targetUrl);
  const target = await pagePromise;
  // The tab may open as about:blank first: wait for the target itself to be loaded (an event of the page, however slow the machine).
  await waitFor(async () => target.url().startsWith(targetUrl) && await target.evaluate(() => document.readyState === 'complete'),
    { what: 'target page loaded', timeoutMs: 30_000 });
  return { panel, target };
}

/** Stores agent settings through the same storage the Settings form writes. */
export async function storeSettings(panel, settings, apiKey = '') {
  await panel.evaluate(async ({ settings, apiKey }) => {
    await chrome.storage.local.set({ 'agent.settings': settings });
    await chrome.storage.session.set({ 'agent.apiKey': apiKey });
  }, { settings, apiKey });
  // The panel reloads its settings on storage.onChanged: wait until it holds these.
  await waitFor(() => panel.evaluate((want) => document.querySelector('#model')?.value === want, settings.model ?? ''), { what: 'the panel holding the stored settings' });
}

/** Types a task in the panel and clicks Run. */
export async function runTask(panel, task) {
  await panel.fill('#task', task);
  await panel.click('#run');
}

/** Waits for the run's outcome entry and returns {outcome, text}. */
export async function outcome(panel, timeoutMs = 30_000) {
  const el = await panel.waitForSelector('#log li.outcome', { timeout: timeoutMs });
  return { outcome: await el.getAttribute('data-outcome'), text: await el.textContent() };
}

/**
 * True when this extension holds no debugger session on the tab: attaching
 * again succeeds only if ours was detached (then we detach again).
 */
export async function debuggerFree(env, tabUrl) {
  return env.evalInWorker(async (url) => {
    const [tab] = (await chrome.tabs.query({})).filter((t) => t.url === url);
    try {
      await chrome.debugger.attach({ tabId: tab.id }, '1.3');
    } catch (err) {
      return `still attached: ${err.message}`;
    }
    await chrome.debugger.detach({ tabId: tab.id });
    return true;
  }, tabUrl);
}

/** A page for the remaining actions; interactions land in window.events. */
export const ACTIONS_HTML = `<!doctype html>
<html><head><title>Agent actions</title><style>
body { margin: 0; font: 16px sans-serif; height: 3000px; }
div, button, a, form { position: absolute; }
#dbl { left: 40px; top: 40px; width: 120px; height: 40px; }
#hov { left: 200px; top: 40px; width: 120px; height: 40px; background: #ddd; }
#press { left: 360px; top: 40px; width: 120px; height: 40px; background: #ccf; }
#drag { left: 40px; top: 140px; width: 60px; height: 60px; background: #fcc; }
#f { left: 40px; top: 260px; }
#newtab { left: 40px; top: 340px; }
</style></head><body>
<button id="dbl">Double me</button>
<div id="hov">Hover me</div>
<div id="press">Hold me</div>
<div id="drag">Drag me</div>
<form id="f" action="" method="get"><input id="q" name="q"></form>
<a id="newtab" href="/second.html" target="_blank">Open second</a>
<script>
window.events = [];
const log = (s) => window.events.push(s);
const $ = (id) => document.getElementById(id);
$('dbl').addEventListener('dblclick', (e) => log('dbl:' + e.isTrusted));
$('hov').addEventListener('mouseenter', () => log('hover'));
let down = 0;
$('press').addEventListener('mousedown', () => { down = performance.now(); window.pressedAt = down; });
$('press').addEventListener('mouseup', () => log('press:' + Math.round(performance.now() - down)));
let start = null;
$('drag').addEventListener('mousedown', (e) => { start = [e.clientX, e.clientY]; });
window.addEventListener('mouseup', (e) => { if (start) log('drag:' + Math.round(e.clientX - start[0]) + ',' + Math.round(e.clientY - start[1])); start = null; });
$('q').addEventListener('keydown', (e) => { if (e.ctrlKey && e.key === 'a') log('key:ctrl+a'); });
</script></body></html>`;
