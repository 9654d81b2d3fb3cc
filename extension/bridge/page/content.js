// The chat bridge's content script, its entry: the worker injects the files
// of bridge/core/page_scripts.js (this one last) only into tabs of armed
// origins, or of a page the options page is picking or checking on, and talks
// to it here: configure (arm, or new settings), disarm, pick, check
// selectors, insert text, show a notice, ping. The other files watch the page
// (observe.js), decide when a reply is done (settle.js), hand it to the worker
// and write the result (call.js, inject.js, sent.js), pick elements (pick.js,
// pick_selector.js) and propose them (detect.js). It
// keeps no settings of its own and never touches page storage or the
// clipboard.
//
// Classic scripts (content scripts cannot be ES modules), injected again on
// every arm: each file defines its part once, and a second run only
// re-configures.
(() => {
  const B = (globalThis.__gnosisBridgePage ??= {});
  if (B.ready) return;

  const PRESET_GRACE_MS = 3000;
  const { queryAll, send } = B.dom;

  /** This page load, for the worker's record of which replies ran. */
  B.page = Math.random().toString(36).slice(2, 10);
  B.config = null; // {source, destination, sendButton, streaming, preset, presetMismatch, autoSend, debounceMs, lost}

  /** A preset whose input is not on the page (after the page had time to render) is reported, not left silent. */
  let presetTimer = 0;
  function checkPreset() {
    clearTimeout(presetTimer);
    if (!B.config?.preset) return;
    const deadline = Date.now() + PRESET_GRACE_MS;
    const look = () => {
      if (!B.config?.preset) return;
      if (B.inject.destinationEditor(B.config.destination)) return;
      if (Date.now() < deadline) {
        presetTimer = setTimeout(look, 250);
        return;
      }
      const error = B.config.presetMismatch;
      B.notice(`Gnosis: ${error}`, 'error');
      send({ type: 'bridge.report', ok: false, stage: 'preset', error });
    };
    look();
  }

  /**
   * Arms the page with the worker's settings. baseline: the bridge starts
   * watching (Start, a reload): the replies on the page now are old, and the
   * newest is handed over at once so the worker records why it did not run.
   */
  function configure(next, baseline) {
    const reread = !B.config || B.config.source !== next.source;
    B.config = next;
    checkPreset();
    B.observe.watch(baseline || reread, B.settle.changed);
    if (baseline) B.settle.handOver(true);
    else B.settle.evaluate();
  }

  function disarm() {
    B.config = null;
    clearTimeout(presetTimer);
    B.settle.stop();
    B.observe.unwatch();
  }

  /** The tag of a match that is not a button but holds one (a container picked instead of its button), else undefined. */
  function holdsButton(all) {
    const { BUTTON } = globalThis.__gnosisPickRules;
    return all.find((el) => !el.matches(BUTTON) && el.querySelector(BUTTON))?.localName;
  }

  /** What each selector matches now: {count, visible, editable?, holdsButton?} or {error}. */
  function check(selectors) {
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
        count: all.length, visible: all.filter(B.dom.visible).length,
        editable: k === 'destination' ? !!B.inject.destinationEditor(css) : undefined,
        holdsButton: k === 'sendButton' ? holdsButton(all) : undefined,
      };
    }
    return { ok: true, results: out };
  }

  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab) return false;
    const run = {
      'bridge.configure': () => (configure(message.config, !!message.baseline), { ok: true }),
      'bridge.disarm': () => (disarm(), { ok: true }),
      'bridge.pick': () => B.pick.pick(message.field),
      'bridge.detect': () => (message.show ? B.detect.start() : B.detect.peek()),
      'bridge.check': () => check(message.selectors),
      'bridge.insert': async () => {
        const r = await B.inject.inject(message.text, message.destination);
        if (!r.ok) B.notice(`Gnosis could not insert: ${r.error}`, 'error');
        return r;
      },
      'bridge.notice': () => (B.notice(message.text, message.kind), { ok: true }),
      'bridge.ping': () => ({ ok: true, armed: !!B.config }),
    }[message?.type];
    if (!run) return false;
    Promise.resolve().then(run).then(sendResponse, (err) => sendResponse({ ok: false, error: String(err?.message || err) }));
    return true;
  });

  B.ready = true;
})();
