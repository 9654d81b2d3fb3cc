// The chat bridge's content script, handing a reply to the worker: one port
// (PORTS.BRIDGE_CALL) per reply, on which the worker says the call is running
// (with the text to write should it go away), then its verdict; the result is
// written into the chat (and sent), and the delivery reported back on the same
// port; a result's images come first on the port, one message each, and are
// attached to the chat message before its text is written (attach.js). A
// port that closes before the verdict means the worker went away:
// before the call ran, the reply is handed over once more (the worker's own
// record says whether it ran); while it ran, the chat gets, once, the text
// saying the call was interrupted and may have run on the desktop, and the
// worker (woken by the report) shows it on the badge and the options page.

import * as inject from './inject.js';
import * as observe from './observe.js';
import * as attach from './attach.js';
import { imageNote } from '../core/image_note.js';
import { notice } from './notice.js';
import { pageState } from './page_state.js';
import { send, tick } from './dom.js';
import { BRIDGE, BRIDGE_CALL, PORTS } from '../../shared/core/messages.js';

/** One exchange on a fresh port: resolves {verdict, port, running} or {lost, running, error?}. */
function exchange(message) {
  return new Promise((resolve) => {
    let port;
    try {
      port = chrome.runtime.connect({ name: PORTS.BRIDGE_CALL });
    } catch (err) {
      resolve({ lost: true, running: null, error: String(err?.message || err) });
      return;
    }
    let running = null;
    let settled = false;
    const images = new Map(); // n -> {mime, base64, name}: the result's images, ahead of the verdict
    port.onMessage.addListener((m) => {
      if (m?.type === BRIDGE_CALL.RUNNING) running = m;
      else if (m?.type === BRIDGE_CALL.IMAGE && Number.isInteger(m.n) && typeof m.base64 === 'string') images.set(m.n, { mime: String(m.mime), base64: m.base64, name: String(m.name) });
      else if (m?.type === BRIDGE_CALL.VERDICT && !settled) {
        settled = true;
        resolve({ verdict: m, port, running, images });
      }
    });
    port.onDisconnect.addListener(() => {
      if (settled) return;
      settled = true;
      resolve({ lost: true, running });
    });
    try {
      port.postMessage({ type: BRIDGE_CALL.EXTRACTED, ...message });
    } catch (err) {
      settled = true;
      resolve({ lost: true, running: null, error: String(err?.message || err) });
    }
  });
}

/** Tells the worker how the delivery went, and when: on the call's port, else (it went away) as a report. */
function report(port, outcome) {
  try {
    port.postMessage({ type: BRIDGE_CALL.DELIVERED, ...outcome });
    return;
  } catch {
    // the worker went away after its verdict: the report wakes it
  }
  send({ type: BRIDGE.REPORT, ...outcome });
}

/**
 * Writes text into the chat and, with autoSend, sends it; says why not when
 * it cannot. With images (the verdict's {capability, list} and their data),
 * they are attached first, the text then says what became of each, and the
 * send waits for the page's uploads. Resolves {ok, stage, error?, at,
 * images?}: at, when the result was written or sent (a reply that arrives
 * later answers it); images, what became of each ({n, attached, why?}).
 */
async function deliver(text, autoSend, images = null, payloads = new Map()) {
  const outcome = images?.list?.length ? await attach.attachImages(images.list, payloads, pageState.config) : null;
  const full = () => (outcome ? `${text}\n\n${imageNote(images.capability, outcome.list)}` : text);
  const said = () => outcome?.list.map(({ n, attached, why, byChoice, name, sentWidth, sentHeight }) => ({ n, attached, ...(attached ? { name, sentWidth, sentHeight } : { why, ...(byChoice ? { byChoice } : {}) }) }));
  // Images left out by the site's own settings (not at all, the bound a message) are said in the text only.
  const missing = () => outcome?.list.filter((i) => !i.attached && !i.byChoice) || [];
  if (missing().length) notice(`Gnosis could not attach ${missingText(missing(), images.capability)}: the text says so.`, 'error');
  let injected = await inject.inject(full(), pageState.config.destination);
  if (!injected.ok) {
    notice(`Gnosis could not inject the result: ${injected.error}`, 'error');
    return { ok: false, stage: 'inject', error: injected.error, at: Date.now(), images: said() };
  }
  let at = Date.now();
  if (autoSend) {
    // A page may drop an attachment before the send: the text then says so.
    if (outcome && attach.recheck(outcome)) {
      notice(`Gnosis: the page dropped ${missingText(missing(), images.capability)}: the text says so.`, 'error');
      injected = await inject.inject(full(), pageState.config.destination);
      if (!injected.ok) return { ok: false, stage: 'inject', error: injected.error, at: Date.now(), images: said() };
    }
    const waitMs = outcome?.list.some((i) => i.attached) ? attach.UPLOAD_MS : undefined;
    const onSend = () => {
      at = Date.now();
      observe.sent();
    };
    const { sendButton, sendWithEnter, destination } = pageState.config;
    const sent = !sendButton && sendWithEnter ? await inject.enterSend(destination, onSend, full())
      : await inject.clickSend(sendButton, onSend, full(), destination, waitMs);
    if (!sent.ok) {
      notice(`Gnosis could not send: ${sent.error}`, 'error');
      return { ok: false, stage: 'send', error: sent.error, at: Date.now(), images: said() };
    }
    if (outcome) {
      const behind = await attach.leftBehind(outcome);
      for (const item of behind) Object.assign(item, { attached: false, why: 'the message went without it: it stayed in the chat input' });
      if (behind.length) {
        const error = `the page sent the message without ${missingText(behind, images.capability)}: it stayed in the chat input`;
        notice(`Gnosis: ${error}.`, 'error');
        return { ok: false, stage: 'attach', error, at, images: said() };
      }
    }
  }
  const lost = missing();
  if (lost.length) return { ok: true, stage: autoSend ? 'send' : 'inject', at, images: said(), error: `not attached: ${missingText(lost, images.capability)}` };
  return { ok: true, stage: autoSend ? 'send' : 'inject', at, ...(outcome ? { images: said() } : {}) };
}

/** "image 2 of 3 (computer.screenshot): why", for a notice or the badge. */
function missingText(items, capability) {
  return items.map((i) => `image ${i.n} of ${i.of} (${capability}): ${i.why}`).join('; ');
}

/**
 * Hands one reply over and acts on the verdict.
 * @param {{reply: object, text: string, index: number, baseline: boolean}} r
 */
async function run({ reply, text, index, baseline, ended = '' }) {
  const config = pageState.config;
  const message = {
    page: pageState.page, reply: reply.id, arrived: !!reply.arrived && !baseline, why: baseline ? 'baseline' : reply.why || '',
    arrivedAt: reply.arrivedAt || 0, text, index, conversation: location.pathname + location.hash, ended,
  };
  let r = await exchange(message);
  if (r.lost && !r.running && !r.error) {
    // The worker went away before the call started: hand it over again (this wakes it).
    await tick(100);
    r = await exchange(message);
  }
  if (r.lost) {
    if (r.error && !r.running) {
      notice(`Gnosis cannot reach its extension (${r.error}): reload this page.`, 'error');
      return;
    }
    const interrupted = r.running?.interrupted || config.lost;
    // The worker's words (core/judge.js workerStoppedWhile): from the call's start, else from the configuration.
    const why = r.running?.why || config.lostWhy;
    observe.consumed();
    notice(`Gnosis: ${why}.`, 'error');
    const outcome = await deliver(interrupted, config.autoSend);
    send({ type: BRIDGE.REPORT, ok: false, stage: 'interrupted', error: why, delivered: outcome.ok });
    return;
  }
  const v = r.verdict;
  try {
    if (v.call) observe.consumed();
    // The call's activity entry (v.entry) is named in the report, should it go the long way (report()).
    if (v.action === 'inject') report(r.port, { ...(await deliver(v.text, v.autoSend, v.images, r.images)), ...(v.entry ? { entry: v.entry } : {}) });
    else if (v.action === 'stopped') notice(v.reason, 'error');
  } finally {
    try {
      r.port.disconnect();
    } catch {
      // already closed
    }
  }
}

export { run };
