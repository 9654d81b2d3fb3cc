// The Page Assistant's bar as a test sees it: its frame (an extension page
// inside the tab, which Playwright reaches and page scripts do not), its
// host element and iframe read through the page's own CDP session
// (DOM.getDocument with pierce exposes closed shadow roots), typing a task
// into it with real input, and the Side Panel's toggle that turns it on.
// Shared by agent_page_assistant.test.js and agent_desktop.test.js.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXTENSION_ORIGIN, waitFor } from './harness.js';
import { MIN_SHOWN_MS } from '../../../extension/agent/core/page_assistant_state.js';

export const FRAME_URL = `${EXTENSION_ORIGIN}agent/frame/page_assistant_frame.html`;
/** Where the bar's screenshots go (GNOSIS_E2E_SHOTS, else a folder under the system's temp dir). */
export const SHOTS = process.env.GNOSIS_E2E_SHOTS || path.join(os.tmpdir(), 'gnosis-e2e-shots');

/** Calls fn (source of a function) with `this` = the bar's shadow root, through CDP; null when there is no bar. */
export async function inShadow(cdp, fn) {
  const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
  const find = (n) => {
    if (n.localName === 'gnosis-page-assistant') return n;
    for (const c of n.children || []) {
      const f = find(c);
      if (f) return f;
    }
    return null;
  };
  const host = find(root);
  if (!host) return null;
  const shadow = host.shadowRoots?.[0];
  const { object } = await cdp.send('DOM.resolveNode', { nodeId: shadow.nodeId });
  const { result } = await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, returnByValue: true, functionDeclaration: fn });
  return { value: result.value, shadowType: shadow.shadowRootType };
}

/** The bar's frame (an extension page inside the tab): Playwright reaches it, the page cannot. */
export const frameOf = (page) => page.frames().find((f) => f.url().startsWith(FRAME_URL));

/**
 * A snapshot of the bar: the host and iframe read through CDP, the bar's
 * content read in its frame; points are in the page's viewport. Null when
 * there is no bar.
 */
export async function bar(page, cdp) {
  const h = await inShadow(cdp, `function () {
      const f = this.querySelector('iframe');
      const r = f.getBoundingClientRect();
      return { mode: this.mode, displayed: this.host.isConnected && getComputedStyle(this.host).display !== 'none', box: { x: r.left, y: r.top, width: r.width, height: r.height } };
    }`);
  if (!h) return null;
  const frame = frameOf(page);
  const v = frame && await frame.evaluate(() => {
    const q = (s) => document.querySelector(s);
    const shown = (e) => Boolean(e) && e.getClientRects().length > 0;
    const at = (e) => { const r = e.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; };
    const b = q('.bar');
    const input = q('.task');
    const cs = getComputedStyle(input);
    const mode = b.dataset.mode;
    return {
      shown: shown(b),
      mode,
      covered: b.dataset.covered === 'true',
      text: q('.text').textContent,
      input: { shown: shown(input), value: input.value, placeholder: input.placeholder, readOnly: input.readOnly, fontSize: cs.fontSize, color: cs.color, at: at(input) },
      go: { at: at(q('.go')), disabled: q('.go').disabled },
      status: q('.status').textContent,
      summary: mode === 'running' && q('.text').dataset.tone !== 'hint' ? q('.text').textContent : '',
      stop: { shown: shown(q('.stop')), disabled: q('.stop').disabled, at: at(q('.stop')) },
      pause: { shown: shown(q('.pause')), disabled: q('.pause').disabled, text: q('.pause').textContent, at: at(q('.pause')) },
      acted: { shown: shown(q('.acted')), at: at(q('.acted')) },
      card: { shown: mode === 'card', kind: b.dataset.kind, outcome: b.dataset.outcome, text: `${q('.title').textContent}: ${q('.text').textContent}`, dismissAt: at(q('.dismiss')) },
      message: mode === 'message' ? q('.text').textContent : '',
      where: (() => {
        const w = q('.where');
        const d = w.querySelector('option[value="desktop"]');
        return { value: w.value, title: w.title, desktop: { disabled: d.disabled, label: d.textContent } };
      })(),
    };
  }).catch(() => null);
  if (!v) return { shadowType: h.shadowType, shadowMode: h.value.mode, visible: false, box: h.value.box };
  const shift = (p) => ({ x: h.value.box.x + p.x, y: h.value.box.y + p.y });
  return {
    ...v,
    shadowType: h.shadowType,
    shadowMode: h.value.mode,
    box: h.value.box,
    visible: h.value.displayed && v.shown,
    input: { ...v.input, at: shift(v.input.at) },
    go: { ...v.go, at: shift(v.go.at) },
    stop: { ...v.stop, at: shift(v.stop.at) },
    pause: { ...v.pause, at: shift(v.pause.at) },
    acted: { ...v.acted, at: shift(v.acted.at) },
    card: { ...v.card, dismissAt: shift(v.card.dismissAt) },
  };
}

/** Saves a picture of the bottom of the page with the bar on it. */
export async function shoot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  const { width, height } = page.viewportSize();
  const file = path.join(SHOTS, `page_assistant_${name}.png`);
  await page.screenshot({ path: file, clip: { x: 0, y: height - 230, width, height: 230 } });
  return file;
}

/** Waits until the bar has shown whole for MIN_SHOWN_MS by its own clock, so it takes a submit. */
export async function uncoveredLongEnough(page) {
  await waitFor(() => frameOf(page)?.evaluate((min) => {
    const since = document.querySelector('.bar')?.dataset.shownSince;
    return Boolean(since) && performance.now() - Number(since) >= min;
  }, MIN_SHOWN_MS).catch(() => false), { what: 'the bar shown whole long enough to take a submit' });
}

/** Switches the page to a colour scheme and waits until the bar's frame has painted in it. */
export async function inScheme(page, scheme) {
  await page.emulateMedia({ colorScheme: scheme });
  await waitFor(() => frameOf(page)?.evaluate((dark) => matchMedia('(prefers-color-scheme: dark)').matches === dark
    && new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))), scheme === 'dark').catch(() => false),
  { what: `the bar in the ${scheme} scheme` });
}

/**
 * Waits until the bar's input has the focus. The bar is another process's frame: keys go to the
 * page until the browser has moved the focus into it (on a loaded machine, the first few keys of a
 * task typed right after the click were the page's).
 */
export async function focusInBar(page) {
  await waitFor(() => frameOf(page)?.evaluate(() => document.hasFocus() && document.activeElement?.className === 'task').catch(() => false),
    { what: 'the focus in the bar\'s input' });
}

/** Types a task into the bar and presses Enter (or clicks Run), with real input events. */
export async function submitOnPage(page, cdp, text, { via = 'enter' } = {}) {
  const b = await waitFor(async () => { const s = await bar(page, cdp); return s?.visible && s.input.shown && !s.covered && s; }, { what: 'the bar input' });
  // The bar takes a submit once it has been uncovered for a moment (clickjacking guard).
  await uncoveredLongEnough(page);
  await page.mouse.click(b.input.at.x, b.input.at.y);
  await focusInBar(page);
  await page.keyboard.type(text);
  if (via === 'enter') await page.keyboard.press('Enter');
  else await page.mouse.click(b.go.at.x, b.go.at.y);
}

export async function enableToggle(panel) {
  await panel.waitForSelector('#page-assistant[data-ready="true"]');
  if (!(await panel.isChecked('#page-assistant-enabled'))) await panel.click('#page-assistant-enabled');
  await waitFor(() => panel.evaluate(async () => (await chrome.storage.local.get('pageAssistant.enabled'))['pageAssistant.enabled'] === true), { what: 'toggle stored' });
}
