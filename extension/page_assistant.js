// The Page Assistant's content script: a task input at the bottom of web
// pages that hands tasks to the Side Panel, which runs them exactly like its
// own (same validation, same loop); the panel relays the run's events back
// here. It holds no settings and never touches the debugger: a task starts
// only from a trusted submit.
//
// Isolation: everything lives in a CLOSED shadow root with its own styles, on
// a host element whose inline !important styles win over page CSS. Nothing is
// exposed to the page's JavaScript (the isolated world's globals are not the
// page's); handlers act only on trusted (user) events, and messages are
// accepted only from this extension. The state machine is
// agent/page_assistant_state.js, loaded first by the same injection.
//
// It uses no chrome.storage: the worker tells it the setting and whether a
// panel is open ({type:'settings'|'panel'} events).
//
// Classic script (content scripts cannot be ES modules), injected at most once
// per document: the registered content script and the injection into tabs
// that were already open may both run it.
(() => {
  if (globalThis.__gnosisPageAssistant) return;
  globalThis.__gnosisPageAssistant = true;
  const S = globalThis.__gnosisPageAssistantState;
  if (!S) return;

  const HOST_STYLE = 'all: initial !important; display: block !important; position: fixed !important; z-index: 2147483647 !important;'
    + ' left: 50% !important; bottom: 12px !important; transform: translateX(-50%) !important; width: min(680px, calc(100vw - 24px)) !important;'
    + ' margin: 0 !important; padding: 0 !important; border: 0 !important; pointer-events: auto !important;';
  const CSS = `
:host { all: initial; }
* { box-sizing: border-box; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; letter-spacing: normal; text-transform: none; }
.bar { display: flex; flex-direction: column; gap: 6px; color: #1b1b1f; }
.card, .message, .run { background: #ffffff; border: 1px solid #c9c9d4; border-radius: 10px; box-shadow: 0 4px 18px rgba(0,0,0,.18); padding: 10px 12px; }
.card { display: flex; gap: 8px; align-items: flex-start; }
.card[data-kind="notice"] { border-color: #d9a441; }
.card[data-outcome="error"] { border-color: #c0392b; }
.card .body { flex: 1; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 40vh; overflow: auto; }
.card .title { font-weight: 600; margin-right: 6px; }
.message { border-color: #c0392b; color: #8e1f14; }
.run { display: flex; gap: 8px; align-items: center; }
.run .texts { flex: 1; min-width: 0; }
.status { font-size: 12px; color: #5b5b66; }
.summary { white-space: normal; overflow-wrap: anywhere; }
form { display: flex; gap: 6px; background: #ffffff; border: 1px solid #c9c9d4; border-radius: 999px; box-shadow: 0 4px 18px rgba(0,0,0,.18); padding: 4px 4px 4px 14px; }
input { flex: 1; min-width: 0; border: 0; outline: none; background: transparent; color: #1b1b1f; padding: 6px 0; }
button { border: 0; border-radius: 999px; padding: 6px 14px; cursor: pointer; background: #3451b2; color: #ffffff; }
button.stop { background: #c0392b; }
button.dismiss { background: transparent; color: #5b5b66; padding: 0 6px; font-size: 18px; line-height: 1; }
button:disabled { opacity: .6; cursor: default; }
[hidden] { display: none !important; }
`;

  let state = S.initialState();
  let ui = null; // {host, root, ...elements}, built while enabled
  let draft = '';

  const send = (message) => chrome.runtime.sendMessage(message).catch((err) => ({ ok: false, error: String(err?.message || err) }));

  function el(tag, props = {}, children = []) {
    const e = document.createElement(tag);
    Object.assign(e, props);
    for (const c of children) e.append(c);
    return e;
  }

  function build() {
    const host = document.createElement('gnosis-page-assistant');
    host.setAttribute('style', HOST_STYLE);
    const root = host.attachShadow({ mode: 'closed' });
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      root.adoptedStyleSheets = [sheet];
    } catch {
      root.append(el('style', { textContent: CSS }));
    }
    const cardTitle = el('span', { className: 'title' });
    const cardText = el('span', { className: 'text' });
    const dismiss = el('button', { type: 'button', className: 'dismiss', title: 'Dismiss', textContent: '×' });
    dismiss.setAttribute('aria-label', 'Dismiss');
    const card = el('div', { className: 'card', hidden: true }, [el('div', { className: 'body' }, [cardTitle, cardText]), dismiss]);
    const message = el('div', { className: 'message', hidden: true });
    message.setAttribute('role', 'alert');
    const status = el('div', { className: 'status' });
    const summary = el('div', { className: 'summary' });
    const stop = el('button', { type: 'button', className: 'stop', textContent: 'Stop' });
    const run = el('div', { className: 'run', hidden: true }, [el('div', { className: 'texts' }, [status, summary]), stop]);
    const input = el('input', { type: 'text', autocomplete: 'off', spellcheck: false });
    input.setAttribute('aria-label', 'Task for the Gnosis agent');
    const go = el('button', { type: 'button', className: 'go', textContent: 'Run' });
    const form = el('form', {}, [input, go]);
    const bar = el('div', { className: 'bar' }, [card, message, run, form]);
    root.append(bar);

    // Keys typed here are the user's, not the page's shortcuts.
    for (const t of ['keydown', 'keyup', 'keypress']) bar.addEventListener(t, (ev) => ev.stopPropagation());
    input.addEventListener('input', () => { draft = input.value; });
    // A form's submit event is trusted even when a script called requestSubmit()
    // or button.click(), so tasks start only from the user's own Enter or click.
    form.addEventListener('submit', (ev) => ev.preventDefault());
    input.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' || ev.isComposing) return;
      ev.preventDefault();
      if (ev.isTrusted) submit(input.value);
    });
    go.addEventListener('click', (ev) => {
      if (ev.isTrusted) submit(input.value);
    });
    stop.addEventListener('click', (ev) => {
      if (!ev.isTrusted) return;
      dispatch({ type: 'stop' });
      send({ type: 'agent.pageStop' }).then((r) => { if (r?.ok === false) dispatch({ type: 'error', message: r.error }); });
    });
    dismiss.addEventListener('click', (ev) => {
      if (!ev.isTrusted) return;
      dispatch({ type: 'dismiss' });
    });
    return { host, root, card, cardTitle, cardText, message, run, status, summary, stop, form, input, go };
  }

  async function submit(text) {
    const task = String(text).trim();
    if (!task) return;
    const before = state;
    dispatch({ type: 'submit' });
    if (state === before) return;
    const r = await send(S.submission(before, task));
    if (!r || r.ok === false) dispatch({ type: 'error', message: r?.error || 'the side panel did not answer' });
  }

  function render() {
    if (!state.enabled) {
      ui?.host.remove();
      ui = null;
      return;
    }
    if (!ui) ui = build();
    // Outside <body>, which single-page apps often replace wholesale.
    if (!ui.host.isConnected) document.documentElement.append(ui.host);
    const v = S.view(state);
    ui.host.style.setProperty('display', v.visible ? 'block' : 'none', 'important');
    ui.card.hidden = !v.card;
    if (v.card) {
      ui.card.dataset.kind = v.card.kind;
      ui.card.dataset.outcome = v.card.outcome;
      ui.cardTitle.textContent = v.card.text ? `${v.card.title}:` : v.card.title;
      ui.cardText.textContent = v.card.text;
    }
    ui.message.hidden = !v.message;
    ui.message.textContent = v.message;
    ui.run.hidden = !v.status;
    ui.stop.hidden = !v.showStop;
    ui.status.textContent = v.status;
    ui.summary.textContent = v.summary;
    ui.stop.disabled = v.stopDisabled;
    const wasHidden = ui.form.hidden;
    ui.form.hidden = !v.showInput;
    ui.input.placeholder = v.placeholder;
    if (v.showInput && wasHidden) {
      // Restored after a run: keep what was typed when the task could not start, clear after a run.
      ui.input.value = state.message && !state.card ? draft : '';
      draft = ui.input.value;
    }
  }

  function dispatch(event) {
    const next = S.reduce(state, event);
    if (next === state) return;
    state = next;
    render();
  }

  chrome.runtime.onMessage.addListener((m, sender) => {
    if (sender?.id !== chrome.runtime.id || sender.tab) return; // only the extension itself (worker, panel)
    if (m?.type === 'gnosis.pageAssistant' && m.event && typeof m.event.type === 'string') dispatch(m.event);
  });
  send({ type: 'pageAssistant.state' }).then((r) => {
    if (!r?.ok) return;
    dispatch({ type: 'panel', open: r.panelOpen });
    dispatch({ type: 'settings', enabled: r.enabled });
  });
})();
