// The options page's Activity view (#activity): every call the chat bridge
// judged and every task the browser agent ran, newest first, from the
// worker's activity log (bridge/worker/activity.js). Filters by site, tool
// and outcome; each entry opens to its decision, redacted arguments and
// result; Clear (the filtered site, or all) and Export as JSON lines. The
// view lives in its own <main id="view-activity">, shown by the page's view
// switch (options_views.js, #activity). It follows the log as it grows
// (storage change events).
import {
  LIMITS, OUTCOME_FILTERS, decisionText, durationText, jsonLines, outcomeLabel, outcomeOf, sizeText,
} from '../core/activity.js';
import { ACTIVITY } from '../../shared/core/messages.js';
import './options_remembered.js';

const $ = (id) => document.getElementById(id);
const PAGE = 50;
const view = { filter: { origin: '', capability: '', outcome: '' }, limit: PAGE, open: new Set(), rendering: null, again: false };

function send(type, extra = {}) {
  return chrome.runtime.sendMessage({ type, ...extra });
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return e;
}

/** The section's fixed parts, built once into the page's empty <section id="activity">. */
function build() {
  const days = Math.round(LIMITS.maxAgeMs / 86_400_000);
  const select = (id, label) => el('div', { className: 'filter' }, el('label', { htmlFor: id, textContent: label }), el('select', { id }));
  $('activity').append(
    el('div', { className: 'section-head' },
      el('h2', { id: 'activity-title', textContent: 'Activity' }),
      el('output', { id: 'activity-count', className: 'muted', 'aria-live': 'polite' })),
    el('p', { className: 'muted activity-lead', textContent: `Every call the chat bridge judged and every task the browser agent ran, newest first. Kept on this device: the newest ${LIMITS.maxEntries.toLocaleString()} of the last ${days} days. Arguments and results are shown as the host's debug log shows them — passwords, keys and tokens hidden, long values cut.` }),
    el('div', { className: 'activity-filters' }, select('activity-site', 'Site'), select('activity-tool', 'Tool'), select('activity-outcome', 'Outcome')),
    el('div', { className: 'row activity-actions' },
      el('button', { id: 'activity-export', type: 'button', textContent: 'Export (JSON lines)' }),
      el('button', { id: 'activity-clear', type: 'button', className: 'quiet', textContent: 'Clear all' })),
    el('div', { id: 'activity-confirm', className: 'card warn', role: 'group', 'aria-labelledby': 'activity-confirm-text', hidden: true },
      el('p', { id: 'activity-confirm-text' }),
      el('div', { className: 'row' },
        el('button', { id: 'activity-confirm-yes', type: 'button', className: 'danger', textContent: 'Clear' }),
        el('button', { id: 'activity-confirm-no', type: 'button', textContent: 'Cancel' }))),
    el('p', { id: 'activity-notice', role: 'status', 'aria-live': 'polite' }),
    el('p', { id: 'activity-state', className: 'muted' }),
    el('ol', { id: 'activity-list', className: 'activity-list', 'aria-labelledby': 'activity-title' }),
    el('button', { id: 'activity-more', type: 'button', hidden: true, textContent: 'Show more' }),
  );
  const outcome = $('activity-outcome');
  outcome.append(new Option('All', ''), ...OUTCOME_FILTERS.map(([v, label]) => new Option(label, v)));
  for (const [id, key] of [['activity-site', 'origin'], ['activity-tool', 'capability'], ['activity-outcome', 'outcome']]) {
    $(id).addEventListener('change', () => {
      view.filter[key] = $(id).value;
      view.limit = PAGE;
      $('activity-confirm').hidden = true;
      refresh();
    });
  }
  $('activity-more').addEventListener('click', () => {
    view.limit += PAGE;
    refresh();
  });
  $('activity-export').addEventListener('click', exportLines);
  $('activity-clear').addEventListener('click', askClear);
  $('activity-confirm-no').addEventListener('click', () => { $('activity-confirm').hidden = true; });
  $('activity-confirm-yes').addEventListener('click', clear);
}

/** Fills a filter's choices, keeping the current one even when the log no longer has it. */
function fillSelect(id, all, values, current) {
  const s = $(id);
  const list = current && !values.includes(current) ? [current, ...values] : values;
  s.replaceChildren(new Option(all, ''), ...list.map((v) => new Option(v, v)));
  s.value = current;
}

/** Pretty JSON of a redacted JSON text (the text itself when it does not parse). */
function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return String(text);
  }
}

function when(at) {
  const d = new Date(at);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

function hostOf(origin) {
  try {
    return new URL(origin).host;
  } catch {
    return origin || '';
  }
}

/** One entry: a summary line (outcome, tool, when, where, how long) that opens to the details. */
function entryItem(e) {
  const outcome = outcomeOf(e);
  const details = el('details', { open: view.open.has(e.id) });
  details.addEventListener('toggle', () => (details.open ? view.open.add(e.id) : view.open.delete(e.id)));
  const what = e.kind === 'task'
    ? el('span', { className: 'task-text', textContent: e.task || '(no text)' })
    : el('code', { className: 'cap', textContent: e.capability || '(no tool)' });
  const meta = [when(e.at), hostOf(e.origin)];
  if (e.kind === 'task') meta.push(`${e.steps} step${e.steps === 1 ? '' : 's'}`);
  else if (e.code) meta.push(e.code, durationText(e.ms), sizeText(e.bytes));
  details.append(el('summary', {},
    el('span', { className: `pill ${outcome}`, textContent: e.kind === 'task' ? `task · ${outcomeLabel(e)}` : outcomeLabel(e) }),
    what,
    el('span', { className: 'meta', textContent: meta.filter(Boolean).join(' · ') })));

  const body = el('div', { className: 'entry-body' });
  body.append(el('p', { className: 'decision', textContent: decisionText(e) }));
  if (e.rememberError) body.append(el('p', { className: 'error', textContent: e.rememberError }));
  const facts = el('dl', {});
  const fact = (k, v) => v && facts.append(el('dt', { textContent: k }), el('dd', { textContent: v }));
  fact('Site', e.origin || '—');
  fact('Time', new Date(e.at).toLocaleString());
  if (e.kind === 'task') {
    fact('Steps', String(e.steps));
    fact('Outcome', e.outcome.replace('_', ' '));
  } else if (e.code) {
    fact('Result', `${e.code}${e.reason ? ` (${e.reason})` : ''} · ${sizeText(e.bytes)} · ${durationText(e.ms)}`);
  }
  body.append(facts);
  if (e.kind === 'task') {
    if (e.text) body.append(el('p', { className: 'task-result', textContent: e.text }));
    // The agent's panel is the manifest's side panel (Chromium browsers only, where agent tasks run).
    const panelPage = chrome.runtime.getManifest().side_panel?.default_path;
    if (e.conversation && panelPage) {
      body.append(el('a', {
        className: 'btn small', target: '_blank', rel: 'noopener', textContent: 'Open the conversation',
        href: `${chrome.runtime.getURL(panelPage)}?conversation=${encodeURIComponent(e.conversation)}`,
      }));
    }
  } else {
    body.append(el('h3', { textContent: `Arguments${e.argsBytes ? ` (${sizeText(e.argsBytes)}, redacted)` : ''}` }), el('pre', { className: 'pre', textContent: pretty(e.args ?? '{}') }));
    if (e.result !== undefined) body.append(el('h3', { textContent: 'Result (redacted)' }), el('pre', { className: 'pre', textContent: pretty(e.result) }));
    else if (e.message) body.append(el('h3', { textContent: 'Error' }), el('pre', { className: 'pre', textContent: e.message }));
  }
  details.append(body);
  return el('li', { className: 'entry', dataset: { id: e.id, outcome, decision: e.decision || e.outcome || '' } }, details);
}

/** Reads the log through the worker and shows it; a refresh asked for while one runs follows it. */
async function refresh() {
  if (view.rendering) {
    view.again = true;
    return view.rendering;
  }
  view.rendering = (async () => {
    do {
      view.again = false;
      const r = await send(ACTIVITY.LIST, { filter: view.filter, limit: view.limit });
      if (!r?.ok) {
        $('activity-notice').textContent = `Could not read the activity: ${r?.error || 'no reply'}`;
        continue;
      }
      fillSelect('activity-site', 'All', r.sites, view.filter.origin);
      fillSelect('activity-tool', 'All', r.tools, view.filter.capability);
      const filtered = Object.values(view.filter).some(Boolean);
      $('activity-count').textContent = filtered ? `${r.matched.toLocaleString()} of ${r.total.toLocaleString()}` : `${r.total.toLocaleString()} entr${r.total === 1 ? 'y' : 'ies'}`;
      $('activity-clear').textContent = view.filter.origin ? `Clear ${hostOf(view.filter.origin)}` : 'Clear all';
      $('activity-clear').disabled = !(view.filter.origin ? r.sites.includes(view.filter.origin) : r.total);
      $('activity-export').disabled = !r.matched;
      $('activity-list').replaceChildren(...r.entries.map(entryItem));
      $('activity-more').hidden = r.entries.length >= r.matched;
      $('activity-state').textContent = r.total ? (r.matched ? '' : 'Nothing matches these filters.')
        : 'Nothing yet. Calls appear here when an armed chat page runs a tool, and tasks when the browser agent runs one.';
    } while (view.again);
    document.body.dataset.activityReady = 'true';
  })().finally(() => { view.rendering = null; });
  return view.rendering;
}

function askClear() {
  const origin = view.filter.origin;
  $('activity-confirm-text').textContent = origin
    ? `Clear the activity of ${origin}? This cannot be undone.`
    : 'Clear all activity, of every site and every agent task? This cannot be undone.';
  $('activity-confirm').hidden = false;
  $('activity-confirm-no').focus();
}

async function clear() {
  $('activity-confirm').hidden = true;
  const origin = view.filter.origin;
  const r = await send(ACTIVITY.CLEAR, origin ? { origin } : {});
  $('activity-notice').textContent = r?.ok ? `Cleared ${r.cleared.toLocaleString()} entr${r.cleared === 1 ? 'y' : 'ies'}.` : `Could not clear: ${r?.error || 'no reply'}`;
  if (origin) {
    view.filter.origin = '';
  }
  await refresh();
}

/** Saves the entries that pass the filter, oldest first, one JSON object a line. */
async function exportLines() {
  const r = await send(ACTIVITY.LIST, { filter: view.filter, limit: LIMITS.maxEntries });
  if (!r?.ok) {
    $('activity-notice').textContent = `Could not export: ${r?.error || 'no reply'}`;
    return;
  }
  const blob = new Blob([jsonLines([...r.entries].reverse())], { type: 'application/x-ndjson' });
  const a = el('a', { href: URL.createObjectURL(blob), download: `gnosis-activity-${new Date().toISOString().slice(0, 10)}.jsonl` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
  $('activity-notice').textContent = `Exported ${r.entries.length.toLocaleString()} entr${r.entries.length === 1 ? 'y' : 'ies'}.`;
}

/** The Activity view is shown when the page's view switch (options_views.js) shows it. */
const shown = () => document.body.dataset.view === 'view-activity';

function main() {
  build();
  const wanted = new URLSearchParams(location.search).get('origin');
  if (wanted && location.hash === '#activity') {
    try {
      view.filter.origin = new URL(wanted).origin;
    } catch {
      view.filter.origin = '';
    }
  }
  let timer = 0;
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area !== 'local' || !Object.hasOwn(changes, 'activity') || !shown()) return;
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
  document.addEventListener('gnosis:view', () => { if (shown()) refresh(); });
  if (shown()) refresh();
}

main();
