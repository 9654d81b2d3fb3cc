// The chat bridge's content script, its entry: the worker loads this module
// (bridge/core/page_scripts.js), which imports the others, only into tabs of
// armed origins, or of a page the options page is picking or checking on, and talks
// to it here: configure (arm, or new settings), disarm, pick, check
// selectors (and how the page takes images), insert text, show a notice, ping. The other files watch the page
// (observe.js), decide when a reply is done (settle.js), hand it to the worker
// and write the result (call.js, inject.js, sent.js) with its images
// (attach.js, attach_detect.js), pick elements (pick.js,
// pick_selector.js) and propose them (detect_page.js, detect_panel.js). It
// keeps no settings of its own and never touches page storage or the
// clipboard.
//
// ES modules, joined into the one script the worker injects
// (content.bundle.js, page_scripts.js): it runs them once per page, so
// injecting it again on every arm only re-configures.

import * as inject from './inject.js';
import * as observe from './observe.js';
import * as pick from './pick.js';
import * as detect from './detect_page.js';
import * as settle from './settle.js';
import { pageMeans } from './attach_detect.js';
import { notice } from './notice.js';
import { pageState } from './page_state.js';
import { queryAll, send, visible } from './dom.js';
import { BUTTON } from '../core/pick_rules.js';
import { BRIDGE, BRIDGE_PAGE } from '../../shared/core/messages.js';

const PRESET_GRACE_MS = 3000;

/** A preset whose input is not on the page (after the page had time to render) is reported, not left silent. */
let presetTimer = 0;
function checkPreset() {
  clearTimeout(presetTimer);
  if (!pageState.config?.preset) return;
  const deadline = Date.now() + PRESET_GRACE_MS;
  const look = () => {
    if (!pageState.config?.preset) return;
    if (inject.destinationEditor(pageState.config.destination)) return;
    if (Date.now() < deadline) {
      presetTimer = setTimeout(look, 250);
      return;
    }
    const error = pageState.config.presetMismatch;
    notice(`Gnosis: ${error}`, 'error');
    send({ type: BRIDGE.REPORT, ok: false, stage: 'preset', error });
  };
  look();
}

/**
 * Arms the page with the worker's settings. baseline: the bridge starts
 * watching (Start, a reload): the replies on the page now are old, and the
 * newest is handed over at once so the worker records why it did not run.
 */
function configure(next, baseline) {
  const reread = !pageState.config || pageState.config.source !== next.source;
  pageState.config = next;
  checkPreset();
  observe.watch(baseline || reread, settle.changed);
  if (baseline) settle.handOver(true);
  else settle.evaluate();
}

function disarm() {
  pageState.config = null;
  clearTimeout(presetTimer);
  settle.stop();
  observe.unwatch();
}

/** The tag of a match that is not a button but holds one (a container picked instead of its button), else undefined. */
function holdsButton(all) {
  return all.find((el) => !el.matches(BUTTON) && el.querySelector(BUTTON))?.localName;
}

/**
 * What each selector matches now: {count, visible, editable?, holdsButton?, empty?, withText?} or {error};
 * with attach (the form's {attachBy, attachTarget, preset}), how the page takes images (attach_detect.js).
 */
async function check(selectors, attach) {
  const out = {};
  for (const [k, css] of Object.entries(selectors || {})) {
    if (!css) continue;
    try {
      document.querySelector(css);
    } catch {
      out[k] = { error: 'invalid selector' };
      continue;
    }
    const all = queryAll(css);
    out[k] = {
      count: all.length, visible: all.filter(visible).length,
      editable: k === 'destination' ? !!inject.destinationEditor(css) : undefined,
      holdsButton: k === 'sendButton' ? holdsButton(all) : undefined,
    };
  }
  if (out.sendButton && !out.sendButton.error && out.destination?.editable) Object.assign(out.sendButton, await detect.probeSend(selectors.sendButton, selectors.destination));
  if (!attach) return { ok: true, results: out };
  const means = pageMeans({ ...attach, destination: selectors?.destination, sendButton: selectors?.sendButton });
  return { ok: true, results: out, attach: means };
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id || sender.tab) return false;
  const run = {
    [BRIDGE_PAGE.CONFIGURE]: () => (configure(message.config, !!message.baseline), { ok: true }),
    [BRIDGE_PAGE.DISARM]: () => (disarm(), { ok: true }),
    // Pick closes the proposal panel first (the person chose to pick instead).
    [BRIDGE_PAGE.PICK]: () => (detect.cancel(), pick.pick(message.field)),
    [BRIDGE_PAGE.DETECT]: () => (message.show ? detect.start() : detect.peek()),
    [BRIDGE_PAGE.CHECK]: () => check(message.selectors, message.attach),
    [BRIDGE_PAGE.INSERT]: async () => {
      const r = await inject.inject(message.text, message.destination);
      if (!r.ok) notice(`Gnosis could not insert: ${r.error}`, 'error');
      return r;
    },
    [BRIDGE_PAGE.NOTICE]: () => (notice(message.text, message.kind), { ok: true }),
    [BRIDGE_PAGE.PING]: () => ({ ok: true, armed: !!pageState.config }),
  }[message?.type];
  if (!run) return false;
  Promise.resolve().then(run).then(sendResponse, (err) => sendResponse({ ok: false, error: String(err?.message || err) }));
  return true;
});
