// The chat bridge's content script: injected by the worker (chrome.scripting)
// only into tabs of armed origins, or of a page the options page is picking
// or checking on. It watches the source for the newest message, hands its
// text to the worker (which gates, dedups, executes) once the reply has
// settled and the site no longer shows it streaming, writes the reply into
// the destination as a person would, and clicks send. It keeps no settings
// and never touches page storage or the clipboard.
//
// Each message handed over carries who it is: an id for its element in this
// page load (a new id when the site writes a new reply into the same
// element), the conversation (the URL path, which SPA navigations change) and
// whether it was seen streaming, so the worker runs every new reply once.
//
// Classic script (content scripts cannot be ES modules); injected again on
// every arm, so it is idempotent: the second run only re-configures.
(() => {
  if (globalThis.__gnosisBridge) return;

  const SEND_WAIT_MS = 5000;
  const EDITABLE = 'textarea, input:not([type]), input[type=text], input[type=search], [contenteditable=""], [contenteditable="true"], [contenteditable="plaintext-only"]';

  const STREAM_POLL_MS = 200;
  const PRESET_GRACE_MS = 3000;

  let config = null; // {source, destination, sendButton, streaming, preset, autoSend, debounceMs}
  let observer = null;
  let timer = 0;
  let lastSeen = ''; // index + textContent of the newest message at the last mutation
  let lastSent = ''; // message id + text last handed to the worker
  let busy = false;
  let again = false;
  let injecting = false;

  const send = (message) => chrome.runtime.sendMessage(message).catch((err) => ({ ok: false, error: String(err?.message || err) }));

  function queryAll(css) {
    try {
      return css ? [...document.querySelectorAll(css)] : [];
    } catch {
      return [];
    }
  }

  // ---- which message is which ---------------------------------------------

  const page = Math.random().toString(36).slice(2, 10); // this page load
  const tracked = new WeakMap(); // element -> {uid, gen, text, streamed}
  let uids = 0;

  /**
   * Follows the newest message element's text: growing from a non-empty part
   * means it is streaming; any other change means the site wrote a new reply
   * into the same element (a new generation, a new message).
   */
  function track(el) {
    const text = el.textContent;
    let t = tracked.get(el);
    if (!t) {
      t = { uid: ++uids, gen: 0, text, streamed: false };
      tracked.set(el, t);
    } else if (text !== t.text) {
      if (!text.startsWith(t.text)) {
        t.gen += 1;
        t.streamed = false;
      } else if (t.text.trim()) {
        t.streamed = true;
      }
      t.text = text;
    }
    return t;
  }

  // ---- extract ----------------------------------------------------------

  function newest() {
    const all = queryAll(config?.source);
    if (!all.length) return null;
    return { index: all.length, el: all[all.length - 1] };
  }

  function streaming() {
    return !!config?.streaming && queryAll(config.streaming).length > 0;
  }

  function onMutation() {
    if (!config) return;
    const n = newest();
    if (n) track(n.el);
    const seen = n ? `${n.index}\u0000${n.el.textContent}` : '';
    if (seen === lastSeen) return; // unrelated part of the page changed
    lastSeen = seen;
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(settle, config.debounceMs);
  }

  async function settle(baseline = false) {
    if (!config) return;
    if (busy) {
      again = true;
      return;
    }
    const n = newest();
    if (!n) return;
    // The site still shows the reply being written: look again shortly.
    if (!baseline && streaming()) {
      clearTimeout(timer);
      timer = setTimeout(settle, STREAM_POLL_MS);
      return;
    }
    const t = track(n.el);
    const id = `${t.uid}.${t.gen}`;
    const text = (n.el.innerText ?? n.el.textContent ?? '').trim();
    const sent = `${id}\u0000${text}`;
    if (sent === lastSent && !baseline) return;
    lastSent = sent;
    busy = true;
    try {
      const reply = await send({
        type: 'bridge.extracted', index: n.index, text, baseline, page, id, streamed: t.streamed, conversation: location.pathname,
      });
      if (reply?.action === 'inject') await deliver(reply);
      else if (reply?.action === 'stopped') notice(reply.reason, 'error');
    } finally {
      busy = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  }

  // ---- inject -----------------------------------------------------------

  function destinationEditor(css) {
    for (const container of queryAll(css)) {
      if (container.matches(EDITABLE)) return container;
      const inner = container.querySelector(EDITABLE);
      if (inner) return inner;
      if (container.isContentEditable) return container;
    }
    return null;
  }

  const norm = (s) => String(s).replace(/\s+/g, ' ').trim();

  function landed(el, text) {
    const have = el.matches('textarea, input') ? el.value : el.innerText;
    return norm(have).includes(norm(text));
  }

  function writeField(el, text) {
    const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    el.focus();
    setter.call(el, text);
    el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }

  function selectAllIn(el) {
    el.focus();
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  const tick = (ms = 50) => new Promise((r) => setTimeout(r, ms));

  async function writeEditable(el, text) {
    // As a person would: select what is there, then insert text. execCommand
    // edits the DOM the way typing does (ProseMirror and Quill read it back);
    // editors that only accept beforeinput (Lexical-like) get that event.
    // Each step is checked after a tick, since editors may revert the DOM.
    selectAllIn(el);
    document.execCommand('insertText', false, text);
    await tick();
    if (landed(el, text)) return;
    selectAllIn(el);
    const ev = new InputEvent('beforeinput', { bubbles: true, cancelable: true, inputType: 'insertText', data: text });
    if (el.dispatchEvent(ev)) {
      // Nobody handled it: a plain contenteditable.
      el.textContent = text;
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
    }
    await tick();
  }

  /** Writes text into the destination; resolves {ok, error?}. */
  async function inject(text, css) {
    const el = destinationEditor(css);
    if (!el) return { ok: false, error: `Inject into: nothing editable matches ${css}` };
    injecting = true;
    try {
      const write = () => (el.matches('textarea, input') ? (writeField(el, text), tick()) : writeEditable(el, text));
      await write();
      // A framework may re-render from its own state: try once more.
      if (!landed(el, text)) await write();
      return landed(el, text) ? { ok: true } : { ok: false, error: 'the text did not land in the destination (the editor rejected it)' };
    } finally {
      injecting = false;
    }
  }

  function enabled(button) {
    return !button.disabled && button.getAttribute('aria-disabled') !== 'true';
  }

  /** Clicks the send button once it is enabled; resolves {ok, error?}. */
  async function clickSend(css) {
    const deadline = Date.now() + SEND_WAIT_MS;
    for (;;) {
      const buttons = queryAll(css);
      const button = buttons.find(enabled);
      if (button) {
        button.click();
        return { ok: true };
      }
      if (Date.now() > deadline) {
        return { ok: false, error: buttons.length ? `Send button stayed disabled for ${SEND_WAIT_MS / 1000} s` : `Send button: nothing matches ${css}` };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function deliver({ text, autoSend }) {
    const injected = await inject(text, config.destination);
    if (!injected.ok) {
      notice(`Gnosis could not inject the result: ${injected.error}`, 'error');
      await send({ type: 'bridge.report', ok: false, stage: 'inject', error: injected.error });
      return;
    }
    if (autoSend) {
      const sent = await clickSend(config.sendButton);
      if (!sent.ok) {
        notice(`Gnosis could not send: ${sent.error}`, 'error');
        await send({ type: 'bridge.report', ok: false, stage: 'send', error: sent.error });
        return;
      }
    }
    await send({ type: 'bridge.report', ok: true, stage: autoSend ? 'send' : 'inject' });
  }

  // ---- a person's own messages reset the safety counter -------------------

  let lastHuman = 0;
  function onHumanInput(event) {
    if (!config || injecting || !event.isTrusted || Date.now() - lastHuman < 1000) return;
    const editor = destinationEditor(config.destination);
    if (editor && editor.contains(event.target)) {
      lastHuman = Date.now();
      send({ type: 'bridge.human' });
    }
  }

  // ---- visible notices (shadow DOM, so the page's CSS cannot hide them) ----

  let noticeHost = null;
  function notice(text, kind = 'info') {
    if (!noticeHost) {
      noticeHost = document.createElement('gnosis-notice');
      noticeHost.attachShadow({ mode: 'open' });
      document.documentElement.appendChild(noticeHost);
    }
    const box = document.createElement('div');
    box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    box.textContent = text;
    box.style.cssText = `position:fixed;right:12px;bottom:12px;z-index:2147483647;max-width:420px;padding:10px 14px;
      font:13px/1.4 system-ui,sans-serif;color:#fff;border-radius:6px;box-shadow:0 2px 8px #0005;
      background:${kind === 'error' ? '#b42318' : '#1f2328'}`;
    noticeHost.shadowRoot.replaceChildren(box);
    setTimeout(() => box.remove(), 10_000);
  }

  // ---- pick: click an element to get a selector ---------------------------

  function cssIdent(s) {
    return /^-?[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? s : null;
  }

  function count(css) {
    return queryAll(css).length;
  }

  /** A selector for el: unique for destination/send, shared by its kind for the source. */
  function selectorFor(el, field) {
    const wantUnique = field !== 'source';
    const ok = (css) => css && count(css) >= 1 && queryAll(css).includes(el) && (!wantUnique || count(css) === 1);
    if (el.id && cssIdent(el.id) && ok(`#${el.id}`)) return `#${el.id}`;
    for (const attr of ['data-testid', 'aria-label', 'name', 'data-role']) {
      const v = el.getAttribute(attr);
      if (v && v.length < 80) {
        const css = `${el.localName}[${attr}="${v.replace(/["\\]/g, '\\$&')}"]`;
        if (ok(css)) return css;
      }
    }
    const classes = [...el.classList].filter(cssIdent).filter((c) => !/\d{3,}/.test(c));
    if (classes.length) {
      const css = `${el.localName}.${classes.join('.')}`;
      if (ok(css)) return css;
      const shortest = `.${classes.join('.')}`;
      if (ok(shortest)) return shortest;
    }
    // A path from the nearest ancestor with an id (or body).
    const parts = [];
    for (let node = el; node && node !== document.documentElement; node = node.parentElement) {
      if (node.id && cssIdent(node.id) && node !== el) {
        parts.unshift(`#${node.id}`);
        break;
      }
      const same = node.parentElement ? [...node.parentElement.children].filter((c) => c.localName === node.localName) : [node];
      const nth = same.length > 1 && !(field === 'source' && node === el) ? `:nth-of-type(${same.indexOf(node) + 1})` : '';
      parts.unshift(node.localName + nth);
    }
    return parts.join(' > ');
  }

  function pick(field) {
    return new Promise((resolve) => {
      const overlay = document.createElement('gnosis-pick');
      overlay.attachShadow({ mode: 'open' });
      const box = document.createElement('div');
      box.style.cssText = 'position:fixed;pointer-events:none;z-index:2147483647;outline:2px solid #0969da;background:#0969da22;display:none';
      const tip = document.createElement('div');
      tip.textContent = 'Gnosis: click the element to use — Escape cancels';
      tip.style.cssText = 'pointer-events:none;position:fixed;top:8px;left:50%;transform:translateX(-50%);z-index:2147483647;padding:6px 10px;background:#1f2328;color:#fff;font:13px system-ui;border-radius:4px';
      overlay.shadowRoot.append(box, tip);
      document.documentElement.appendChild(overlay);
      // Pointer events and elementFromPoint, so disabled buttons (which get
      // no mouse events) can be picked too.
      const under = (e) => {
        const el = document.elementFromPoint(e.clientX, e.clientY);
        return el instanceof Element && el !== overlay ? el : null;
      };
      const move = (e) => {
        const el = under(e);
        if (!el) return;
        const r = el.getBoundingClientRect();
        Object.assign(box.style, { display: 'block', left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
      };
      const swallow = (e) => {
        e.preventDefault();
        e.stopPropagation();
      };
      const finish = (result) => {
        removeEventListener('pointermove', move, true);
        removeEventListener('pointerdown', down, true);
        removeEventListener('keydown', key, true);
        overlay.remove();
        // The click that follows the pick must not reach the page.
        setTimeout(() => {
          removeEventListener('click', swallow, true);
          removeEventListener('mousedown', swallow, true);
          removeEventListener('mouseup', swallow, true);
        }, 300);
        resolve(result);
      };
      const down = (e) => {
        swallow(e);
        const el = under(e);
        finish(el ? { ok: true, selector: selectorFor(el, field) } : { ok: false, cancelled: true });
      };
      const key = (e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          finish({ ok: false, cancelled: true });
        }
      };
      addEventListener('pointermove', move, true);
      addEventListener('pointerdown', down, true);
      addEventListener('click', swallow, true);
      addEventListener('mousedown', swallow, true);
      addEventListener('mouseup', swallow, true);
      addEventListener('keydown', key, true);
    });
  }

  // ---- configuration from the worker --------------------------------------

  /** A preset whose input is not on the page (after the page had time to render) is reported, not left silent. */
  let presetTimer = 0;
  function checkPreset() {
    clearTimeout(presetTimer);
    if (!config?.preset) return;
    const deadline = Date.now() + PRESET_GRACE_MS;
    const look = () => {
      if (!config?.preset) return;
      if (destinationEditor(config.destination)) return;
      if (Date.now() < deadline) {
        presetTimer = setTimeout(look, 250);
        return;
      }
      const error = config.presetMismatch;
      notice(`Gnosis: ${error}`, 'error');
      send({ type: 'bridge.report', ok: false, stage: 'preset', error });
    };
    look();
  }

  function configure(next, baseline) {
    config = next;
    lastSeen = '';
    checkPreset();
    if (!observer) {
      observer = new MutationObserver(onMutation);
      observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true });
      addEventListener('keydown', onHumanInput, true);
    }
    const n = newest();
    if (n) track(n.el);
    lastSeen = n ? `${n.index}\u0000${n.el.textContent}` : '';
    if (baseline) settle(true);
    else schedule();
  }

  function disarm() {
    config = null;
    clearTimeout(timer);
    clearTimeout(presetTimer);
    observer?.disconnect();
    observer = null;
    removeEventListener('keydown', onHumanInput, true);
    lastSent = '';
  }

  chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab) return false;
    const run = {
      'bridge.configure': () => (configure(message.config, !!message.baseline), { ok: true }),
      'bridge.disarm': () => (disarm(), { ok: true }),
      'bridge.pick': () => pick(message.field),
      'bridge.check': () => {
        const out = {};
        for (const [k, css] of Object.entries(message.selectors || {})) {
          if (!css) continue;
          try {
            document.querySelector(css);
            out[k] = { count: count(css), editable: k === 'destination' ? !!destinationEditor(css) : undefined };
          } catch {
            out[k] = { error: 'invalid selector' };
          }
        }
        return { ok: true, results: out };
      },
      'bridge.insert': async () => {
        const r = await inject(message.text, message.destination);
        if (!r.ok) notice(`Gnosis could not insert: ${r.error}`, 'error');
        return r;
      },
      'bridge.notice': () => (notice(message.text, message.kind), { ok: true }),
      'bridge.ping': () => ({ ok: true, armed: !!config }),
    }[message?.type];
    if (!run) return false;
    Promise.resolve().then(run).then(sendResponse, (err) => sendResponse({ ok: false, error: String(err?.message || err) }));
    return true;
  });

  globalThis.__gnosisBridge = { version: 1 };
})();
