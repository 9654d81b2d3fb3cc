// The Side Panel's conversation bar: the selector of stored conversations,
// New, Export, Delete (after an in-page confirmation), and the rendering of a
// conversation's stored records above the live log. The store is
// core/conversation_store.js; this is DOM glue.

import { userText } from '../core/outcome_text.js';

const OUTCOME_TEXT = {
  finished: 'Finished',
  call_user: 'The agent asked',
  stopped: 'Stopped',
  step_limit: 'Stopped at the step limit',
  error: 'Error',
  interrupted: 'Interrupted',
};

/** Thinking longer than this many characters is folded to a few lines, with a button to open it. */
export const FOLD_CHARS = 240;

/** How an action or a result folds: at six lines, and only where that hides something. */
export const LONG_LINE = Object.freeze({ lines: 6, minChars: 120 });

/** Folded parts whose text may fit after all: the button shows only where the fold hides something. */
const folds = typeof ResizeObserver === 'function' ? new ResizeObserver((entries) => {
  for (const { target } of entries) fitFold(target.parentElement);
}) : null;

function fitFold(el) {
  const body = el?.querySelector(':scope > .fold-body');
  if (!body || el.classList.contains('open')) return;
  el.classList.toggle('fits', body.scrollHeight <= body.clientHeight + 1);
}

/**
 * Sets el's text; one longer than minChars (or than `lines` lines) is
 * folded to `lines` lines (CSS line-clamp) with a "Show all" button that
 * opens it (and "Show less" that folds it again). The button is hidden
 * while the whole text fits those lines (a wide panel).
 */
export function setFoldable(el, text, { lines = 3, minChars = FOLD_CHARS } = {}) {
  const t = String(text ?? '');
  folds?.unobserve(el.querySelector(':scope > .fold-body') || el);
  el.replaceChildren();
  const body = document.createElement('span');
  body.className = 'fold-body';
  body.textContent = t;
  el.append(body);
  const long = t.length > minChars || t.split('\n').length > lines;
  el.classList.toggle('foldable', long);
  el.classList.remove('fits');
  if (lines !== 3) el.style.setProperty('--fold-lines', String(lines));
  if (!long) {
    el.classList.remove('open');
    return;
  }
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'fold link';
  const label = () => { b.textContent = el.classList.contains('open') ? 'Show less' : 'Show all'; };
  b.setAttribute('aria-expanded', String(el.classList.contains('open')));
  b.addEventListener('click', () => {
    el.classList.toggle('open');
    b.setAttribute('aria-expanded', String(el.classList.contains('open')));
    label();
    fitFold(el);
  });
  label();
  el.append(b);
  folds?.observe(body);
}

/** A row of thumbnails for reference images ({name, dataUrl}). */
export function thumbnails(images) {
  const row = document.createElement('div');
  row.className = 'thumbs';
  for (const img of images) {
    const pic = document.createElement('img');
    pic.src = img.dataUrl;
    pic.alt = img.name;
    pic.title = img.name;
    row.append(pic);
  }
  return row;
}

/** Marks a step with the surface it acted on (the tab or the desktop), in its head line. */
export function markSurface(el, surface) {
  if (!surface || el.dataset.surface === surface) return;
  el.dataset.surface = surface;
  const head = el.querySelector('.head');
  let tag = head.querySelector('.surface');
  if (!tag) {
    tag = document.createElement('span');
    tag.className = 'surface';
    head.append(' ', tag);
  }
  tag.textContent = surface === 'desktop' ? 'Desktop' : 'Tab';
}

/**
 * Renders stored records as list items (tasks, steps, outcomes, notes,
 * summaries); images maps a task record's seq to its reference images.
 */
export function renderRecords(list, records, images = new Map()) {
  const items = [];
  let step = null;
  for (const r of records) {
    if (r.kind === 'analysis' || r.kind === 'action' || r.kind === 'result') {
      if (!step || step.dataset.step !== String(r.step)) {
        step = document.createElement('li');
        step.className = 'past-step';
        step.dataset.step = String(r.step);
        const head = document.createElement('div');
        head.className = 'head';
        head.textContent = `Step ${r.step}`;
        step.append(head);
        items.push(step);
      }
      if (r.kind === 'action' && r.surface) markSurface(step, r.surface);
      const d = document.createElement('div');
      d.className = r.kind === 'analysis' ? 'think' : r.kind;
      if (r.kind === 'result' && r.error) d.classList.add(r.interrupted ? 'stopped' : 'failed');
      setFoldable(d, r.text || '', r.kind === 'analysis' ? {} : LONG_LINE);
      step.append(d);
      continue;
    }
    step = null;
    const li = document.createElement('li');
    li.dataset.seq = String(r.seq);
    switch (r.kind) {
      case 'task':
        li.className = 'past-user';
        li.textContent = r.text;
        if (images.get(r.seq)?.length) {
          li.dataset.images = String(images.get(r.seq).length);
          li.append(thumbnails(images.get(r.seq)));
        }
        break;
      case 'user': li.className = 'past-user'; li.textContent = `Reply: ${userText(r.text, r.acted)}`; break;
      case 'outcome':
        li.className = r.outcome === 'call_user' ? 'past-outcome past-question' : 'past-outcome';
        li.dataset.outcome = r.outcome;
        li.textContent = `${OUTCOME_TEXT[r.outcome] || r.outcome}${r.text ? `: ${r.text}` : '.'}`;
        break;
      case 'summary': li.className = 'past-summary'; li.textContent = `Summary of earlier records (compacted): ${r.text}`; break;
      default: li.className = r.acted ? 'past-note past-acted' : 'past-note'; li.textContent = r.text || '';
    }
    items.push(li);
  }
  list.replaceChildren(...items);
}

/**
 * Wires the bar.
 * @param {object} o
 * @param {import('../core/conversation_store.js').ConversationStore} o.store
 * @param {{select, newButton, exportButton, deleteButton, confirmBox, confirmYes, confirmNo, past}} o.els
 * @param {(id: string, records: object[]) => void|Promise<void>} o.onSwitch the active conversation changed (cleared views, new id); awaited
 * @param {(id: string) => Promise<void>} o.onExport
 * @param {() => boolean} o.busy true while a task runs (switching is refused)
 */
export function createConversationBar({ store, els, onSwitch, onExport, busy }) {
  async function referenceImages(id, records) {
    const out = new Map();
    for (const r of records) {
      if (r.kind === 'task' && r.images?.length) out.set(r.seq, await store.referenceImages(id, r.seq).catch(() => []));
    }
    return out;
  }

  let activeId = null;

  async function refresh() {
    const all = await store.list();
    els.select.replaceChildren(...all.map((c) => {
      const o = document.createElement('option');
      o.value = c.id;
      // The title alone fits a narrow panel; the time is in the tooltip.
      o.textContent = c.title;
      o.title = `${c.title} · ${new Date(c.updatedAt).toLocaleString()}`;
      return o;
    }));
    if (activeId) els.select.value = activeId;
  }

  async function activate(id) {
    activeId = id;
    const records = await store.records(id);
    renderRecords(els.past, records, await referenceImages(id, records));
    await refresh();
    await onSwitch(id, records);
  }

  els.select.addEventListener('change', async () => {
    if (busy()) { els.select.value = activeId; return; }
    await store.setActive(els.select.value);
    await activate(els.select.value);
  });
  els.newButton.addEventListener('click', async () => {
    if (busy()) return;
    const c = await store.create();
    await activate(c.id);
  });
  els.exportButton.addEventListener('click', () => onExport(activeId));
  els.deleteButton.addEventListener('click', () => {
    if (busy()) return;
    els.confirmBox.hidden = false;
    els.confirmNo.focus();
  });
  els.confirmNo.addEventListener('click', () => { els.confirmBox.hidden = true; });
  els.confirmYes.addEventListener('click', async () => {
    els.confirmBox.hidden = true;
    if (busy()) return;
    await store.delete(activeId);
    const next = (await store.list())[0];
    if (next) await store.setActive(next.id);
    const c = next || (await store.ensureActive());
    await activate(c.id);
  });

  return {
    /** Restores the active conversation (creating one on first run). */
    async start() {
      const c = await store.ensureActive();
      await activate(c.id);
    },
    get activeId() { return activeId; },
    refresh,
    /** Disables the controls that would switch away while a task runs. */
    setBusy(b) {
      for (const el of [els.select, els.newButton, els.deleteButton]) el.disabled = b;
    },
  };
}
