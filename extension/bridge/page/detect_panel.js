// The chat bridge's content script, what auto-detection shows the person
// (detect_page.js runs it): the outlines of the elements found, labelled
// with their field, and the panel that lists the fields with why each was
// chosen, what the streaming sign looked like, and the offer to send with
// Enter, each ticked when sure. Only the person's own clicks count on it.

import { visible } from './dom.js';

const LABELS = { destination: 'Inject into', sendButton: 'Send button', source: 'Extract from', streaming: 'Still replying while' };
const COLORS = { destination: '#0969da', sendButton: '#8250df', source: '#1a7f37', streaming: '#bf8700' };

/** The panel's and the outlines' style, inside their shadow root. */
function panelStyle() {
  return `
    :host { all: initial; }
    .box { position: fixed; pointer-events: none; z-index: 2147483646; border-radius: 3px; }
    .tag { position: absolute; left: -2px; top: -20px; padding: 1px 6px; font: 600 11px/16px system-ui, sans-serif; color: #fff; border-radius: 3px; white-space: nowrap; }
    .panel { position: fixed; top: 12px; right: 12px; z-index: 2147483647; width: min(360px, calc(100vw - 24px)); box-sizing: border-box;
      padding: 12px 14px; background: #fff; color: #1f2328; font: 13px/1.4 system-ui, sans-serif; border: 1px solid #d0d7de;
      border-radius: 8px; box-shadow: 0 8px 24px #0003; }
    .head { display: flex; align-items: center; justify-content: space-between; gap: 8px; margin: 0 0 4px; }
    h2 { margin: 0; font-size: 14px; }
    button.quiet { padding: 2px 8px; background: transparent; border-color: transparent; color: #0969da; }
    p { margin: 0 0 8px; color: #57606a; }
    ul { list-style: none; margin: 0 0 10px; padding: 0; }
    li { display: flex; gap: 8px; align-items: flex-start; padding: 5px 0; border-top: 1px solid #eaeef2; }
    li:first-child { border-top: 0; }
    .dot { flex: none; width: 10px; height: 10px; margin-top: 4px; border-radius: 50%; }
    label { display: flex; gap: 6px; align-items: flex-start; flex: 1; min-width: 0; cursor: pointer; }
    input { margin: 2px 0 0; flex: none; width: 13px; height: 13px; }
    .nobox { flex: none; width: 13px; margin-right: -2px; }
    .field { font-weight: 600; }
    .why { display: block; color: #57606a; overflow-wrap: anywhere; }
    .seen { display: block; margin-top: 2px; font: 12px/1.4 ui-monospace, monospace; color: #57606a; overflow-wrap: anywhere; }
    .unsure { color: #9a6700; }
    .row { display: flex; gap: 8px; justify-content: flex-end; flex-wrap: wrap; }
    .small .row { margin-top: 6px; }
    button { font: 600 13px system-ui, sans-serif; padding: 5px 12px; border-radius: 6px; border: 1px solid #d0d7de; background: #f6f8fa; color: #1f2328; cursor: pointer; }
    button.primary { background: #1f883d; border-color: #1a7f37; color: #fff; }
    button:focus-visible, input:focus-visible { outline: 2px solid #0969da; outline-offset: 2px; }
    @media (prefers-color-scheme: dark) {
      .panel { background: #161b22; color: #e6edf3; border-color: #30363d; }
      p, .why, .seen { color: #9198a1; }
      li { border-color: #21262d; }
      .unsure { color: #d29922; }
      button { background: #21262d; border-color: #30363d; color: #e6edf3; }
      button.quiet { background: transparent; border-color: transparent; color: #4493f8; }
    }`;
}

/** The outlines of what was found, where the elements are now. */
function renderBoxes(s) {
  const boxes = [];
  for (const field of Object.keys(LABELS)) {
    const p = s.found[field];
    if (!p?.el?.isConnected || !visible(p.el)) continue;
    const r = p.el.getBoundingClientRect();
    const box = document.createElement('div');
    box.className = 'box';
    box.dataset.field = field;
    box.style.cssText = `left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px;outline:2px ${p.sure ? 'solid' : 'dashed'} ${COLORS[field]};background:${COLORS[field]}18`;
    const tag = document.createElement('span');
    tag.className = 'tag';
    tag.style.background = COLORS[field];
    tag.textContent = `${LABELS[field]}${p.sure ? '' : '?'}`;
    if (r.top < 22) tag.style.top = `${r.height + 2}px`;
    // Near the right edge the label hangs left from the box's right side.
    if (r.left > innerWidth - 140) Object.assign(tag.style, { left: 'auto', right: '-2px' });
    box.append(tag);
    boxes.push(box);
  }
  s.boxes.replaceChildren(...boxes);
}

/** Whether results go out with Enter: ticked unless a send button is ticked. */
const enterTicked = (s) => s.ticked.sendWithEnter ?? !(s.ticked.sendButton ?? s.found.sendButton?.sure);

/**
 * A row of the panel: a dot in the field's colour, its name and why (and what
 * was seen), and a box to tick when onTick is given. Only the person's own
 * clicks count: the page can reach this panel's open shadow root.
 */
function panelRow(field, { label, color, why, unsure = false, seen = '', checked = false, onTick = null }) {
  const li = document.createElement('li');
  li.dataset.field = field;
  const dot = document.createElement('span');
  dot.className = 'dot';
  dot.style.background = color;
  const text = document.createElement('span');
  const name = document.createElement('span');
  name.className = 'field';
  name.textContent = label;
  const reason = document.createElement('span');
  reason.className = `why${unsure ? ' unsure' : ''}`;
  reason.textContent = why;
  text.append(name, reason);
  if (seen) {
    const line = document.createElement('span');
    line.className = 'seen';
    line.textContent = `Seen while the reply streamed: ${seen}`;
    text.append(line);
  }
  if (!onTick) {
    const gap = document.createElement('span');
    gap.className = 'nobox';
    li.append(dot, gap, text);
    return li;
  }
  const box = document.createElement('input');
  box.type = 'checkbox';
  box.checked = checked;
  box.setAttribute('aria-label', `Use ${label}`);
  box.addEventListener('click', (e) => {
    if (!e.isTrusted) e.preventDefault();
  });
  box.addEventListener('change', () => onTick(box.checked));
  const wrap = document.createElement('label');
  wrap.append(box, text);
  li.append(dot, wrap);
  return li;
}

/** What a row says of a field: what was found and why, or what to do. */
function whyOf(s, field, p) {
  if (p) return `${p.sure ? '' : 'not sure: '}${p.why}${p.count > 1 ? ` (${p.count} on the page)` : ''}`;
  if ((field === 'source' || field === 'streaming') && s.watching) return 'not found yet: send a message here and Gnosis watches the reply';
  return 'not found: Pick it on the options page';
}

/** The panel: each field, what was found and why, ticked when sure; and sending with Enter when the person sent that way. */
function renderPanel(s, finish) {
  const items = Object.entries(LABELS).map(([field, label]) => {
    const p = s.found[field];
    // The streaming sign is gone once the reply ends, so there is nothing to outline: the row says what was seen.
    return panelRow(field, {
      label, color: p ? COLORS[field] : '#d0d7de', why: whyOf(s, field, p), unsure: !!p && !p.sure, seen: p?.seen,
      checked: s.ticked[field] ?? p?.sure, onTick: p?.selector ? (on) => { s.ticked[field] = on; } : null,
    });
  });
  if (s.found.sendButton?.enter) {
    items.push(panelRow('sendWithEnter', {
      label: 'Send with Enter', color: COLORS.sendButton, why: 'you sent your message with Enter: each result can be sent the same way',
      checked: enterTicked(s), onTick: (on) => { s.ticked.sendWithEnter = on; },
    }));
  }
  const panel = document.createElement('div');
  panel.className = `panel${s.small ? ' small' : ''}`;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-label', 'Gnosis found these parts of the chat');
  const head = document.createElement('div');
  head.className = 'head';
  const h = document.createElement('h2');
  const count = Object.values(s.found).filter(Boolean).length;
  h.textContent = s.small ? `Gnosis found ${count} of 4 parts` : 'What Gnosis found';
  const fold = document.createElement('button');
  fold.className = 'quiet';
  fold.textContent = s.small ? 'Show' : 'Hide';
  fold.setAttribute('aria-expanded', String(!s.small));
  fold.title = s.small ? 'Show the list' : 'Make the panel small, to see the page under it';
  fold.addEventListener('click', (e) => {
    if (!e.isTrusted) return;
    s.small = !s.small;
    renderPanel(s, finish);
  });
  head.append(h, fold);
  const lead = document.createElement('p');
  lead.textContent = 'The chat bridge reads and writes this chat through these parts. Untick what is wrong; anything unticked or not found is left to Pick.';
  const list = document.createElement('ul');
  list.append(...items);
  const use = document.createElement('button');
  use.className = 'primary';
  use.textContent = 'Use these';
  use.addEventListener('click', (e) => e.isTrusted && finish(true));
  const cancel = document.createElement('button');
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', (e) => e.isTrusted && finish(false));
  const row = document.createElement('div');
  row.className = 'row';
  row.append(cancel, use);
  if (s.small) panel.append(head, row);
  else panel.append(head, lead, list, row);
  s.panel.replaceChildren(panel);
}

export { panelStyle, renderBoxes, renderPanel, enterTicked };
