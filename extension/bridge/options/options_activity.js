// The options page's Activity view (#activity): every call the chat bridge
// judged and every task the browser agent ran, newest first, from the
// worker's activity log (bridge/worker/activity_log.js). Filters by site, tool
// and outcome; each entry opens to its decision, redacted arguments and
// result; Clear (the filtered site, or all) and Export as JSON lines. The
// view lives in its own <main id="view-activity">, shown by the page's view
// switch (options_views.js, #activity). It follows the log as it grows
// (storage change events).
import {
  LIMITS, OUTCOME_FILTERS, argsPreview, decisionText, durationText, jsonLines, nestTaskCalls, outcomeLabel, outcomeOf, sizeText,
} from '../core/activity_entries.js';
import { ACTIVITY } from '../../shared/core/messages.js';
import { $, breakable, h, send } from '../../shared/page.js';
import './options_remembered.js';
import { imagesFact } from '../core/image_note.js';

const PAGE = 50;
const view = { filter: { origin: '', capability: '', outcome: '' }, limit: PAGE, open: new Set(), rendering: null, again: false };

/** The section's fixed parts, built once into the page's empty <section id="activity">. */
function build() {
  const days = Math.round(LIMITS.maxAgeMs / 86_400_000);
  const select = (id, label) => h('div', { class: 'filter' }, h('label', { for: id, text: label }), h('select', { id }));
  $('activity').append(
    h('div', { class: 'section-head' },
      h('h2', { id: 'activity-title', text: 'Activity' }),
      h('output', { id: 'activity-count', class: 'muted', 'aria-live': 'polite' })),
    h('p', { class: 'muted activity-lead', text: `Every call the chat bridge judged and every task the browser agent ran, newest first. Kept on this device: the newest ${LIMITS.maxEntries.toLocaleString()} of the last ${days} days. Arguments and results are shown as the host's debug log shows them — passwords, keys and tokens hidden, long values cut.` }),
    h('div', { class: 'activity-filters' }, select('activity-site', 'Site'), select('activity-tool', 'Tool'), select('activity-outcome', 'Outcome')),
    h('div', { class: 'row activity-actions' },
      h('button', { id: 'activity-export', type: 'button', text: 'Export (JSON lines)' }),
      h('button', { id: 'activity-clear', type: 'button', class: 'quiet', text: 'Clear all' })),
    h('div', { id: 'activity-confirm', class: 'card warn', role: 'group', 'aria-labelledby': 'activity-confirm-text', hidden: true },
      h('p', { id: 'activity-confirm-text' }),
      h('div', { class: 'row' },
        h('button', { id: 'activity-confirm-yes', type: 'button', class: 'danger', text: 'Clear' }),
        h('button', { id: 'activity-confirm-no', type: 'button', text: 'Cancel' }))),
    h('p', { id: 'activity-notice', role: 'status', 'aria-live': 'polite' }),
    h('p', { id: 'activity-state', class: 'muted' }),
    h('ol', { id: 'activity-list', class: 'activity-list', 'aria-labelledby': 'activity-title' }),
    h('button', { id: 'activity-more', type: 'button', hidden: true, text: 'Show more' }),
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

/** Whether an entry's origin is the browser agent's: its own calls come under the extension's origin. */
const byAgent = (origin) => origin === location.origin;

function hostOf(origin) {
  if (byAgent(origin)) return 'the browser agent';
  try {
    return new URL(origin).host;
  } catch {
    return origin || '';
  }
}

/** One entry: a summary (tool, outcome, its arguments on one line, when, where, how long) that opens to the details. */
function entryItem(e) {
  const outcome = outcomeOf(e);
  const details = h('details', { open: view.open.has(e.id) });
  details.addEventListener('toggle', () => (details.open ? view.open.add(e.id) : view.open.delete(e.id)));
  const what = e.kind === 'task'
    ? h('span', { class: 'task-text', text: e.task || '(no text)' })
    : h('code', { class: 'cap' }, ...breakable(e.capability || '(no tool)'));
  const meta = [when(e.at), hostOf(e.origin)];
  if (e.kind === 'task') meta.push(`${e.steps} step${e.steps === 1 ? '' : 's'}`);
  else if (e.code) meta.push(e.code, durationText(e.ms), sizeText(e.bytes));
  // Each fact of the meta line stays whole ("1.5 s", "134 B"), its separator with it; the line breaks between them.
  const shown = meta.filter(Boolean);
  const metaFacts = shown.flatMap((m, i) => [i ? ' ' : null, h('span', { class: 'fact', text: i < shown.length - 1 ? `${m} ·` : m })]).filter(Boolean);
  const args = argsPreview(e);
  details.append(h('summary', {},
    what,
    h('span', { class: `pill ${outcome}`, text: e.kind === 'task' ? `task · ${outcomeLabel(e)}` : outcomeLabel(e) }),
    args ? h('span', { class: 'args', text: args, title: args }) : null,
    h('span', { class: 'meta' }, ...metaFacts)));

  const body = h('div', { class: 'entry-body' });
  body.append(h('p', { class: 'decision', text: decisionText(e, { agent: byAgent(e.origin) }) }));
  if (e.rememberError) body.append(h('p', { class: 'error', text: e.rememberError }));
  const facts = h('dl', {});
  const fact = (k, v) => v && facts.append(h('dt', { text: k }), h('dd', { text: v }));
  fact('Site', byAgent(e.origin) ? 'the browser agent (this extension)' : e.origin || '—');
  fact('Time', new Date(e.at).toLocaleString());
  if (e.kind === 'task') {
    fact('Steps', String(e.steps));
    fact('Outcome', e.outcome.replace('_', ' '));
  } else if (e.code) {
    fact('Result', `${e.code}${e.reason ? ` (${e.reason})` : ''} · ${sizeText(e.bytes)} · ${durationText(e.ms)}`);
    fact('Images', imagesFact(e.images));
  }
  body.append(facts);
  if (e.kind === 'task') {
    if (e.text) body.append(h('p', { class: 'task-result', text: e.text }));
    // The task's own host calls (its desktop actions), each with its decision, in the order they ran.
    if (e.calls?.length) {
      body.append(h('h3', { text: `Its desktop calls (${e.calls.length})` }), h('ol', { class: 'task-calls' }, ...e.calls.map(entryItem)));
    }
    // The agent's panel is the manifest's side panel (Chromium browsers only, where agent tasks run).
    const panelPage = chrome.runtime.getManifest().side_panel?.default_path;
    if (e.conversation && panelPage) {
      body.append(h('a', {
        class: 'btn small', target: '_blank', rel: 'noopener', text: 'Open the conversation',
        href: `${chrome.runtime.getURL(panelPage)}?conversation=${encodeURIComponent(e.conversation)}`,
      }));
    }
  } else {
    body.append(h('h3', { text: `Arguments${e.argsBytes ? ` (${sizeText(e.argsBytes)}, redacted)` : ''}` }), h('pre', { class: 'pre', text: pretty(e.args ?? '{}') }));
    if (e.result !== undefined) body.append(h('h3', { text: 'Result (redacted)' }), h('pre', { class: 'pre', text: pretty(e.result) }));
    else if (e.message) body.append(h('h3', { text: 'Error' }), h('pre', { class: 'pre', text: e.message }));
  }
  details.append(body);
  return h('li', { class: 'entry', 'data-id': e.id, 'data-outcome': outcome, 'data-decision': e.decision || e.outcome || '' }, details);
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
      $('activity-list').replaceChildren(...nestTaskCalls(r.entries).map(entryItem));
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
  const a = h('a', { href: URL.createObjectURL(blob), download: `gnosis-activity-${new Date().toISOString().slice(0, 10)}.jsonl` });
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
