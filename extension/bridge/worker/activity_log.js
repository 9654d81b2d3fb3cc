// The activity log in the worker: records each call the bridge judges and
// each agent task, keeps them in chrome.storage.local (so they survive a
// browser restart) within the bound of core/activity_entries.js (the newest 1,000
// entries of the last 30 days), and answers the options page's Activity view.
//
// Storage: "activity" holds the index (small items, oldest first: id, time,
// site, tool, outcome), "activity:<id>" each whole entry, so the view filters
// without reading every entry and a write touches only the index and the new
// entries. Writes are queued and batched: calls that end together cost one write.
// A call's entry is made when its batch is written, after the reply has gone
// back to the caller: measuring and summarising a large result (a desktop
// screenshot) is then off the call's path, and the entry is the same.
//
// The call path reports through recordCall (wraps one execute), recordNotACall
// and recordStopped; the approval window notes the question and its answer on
// the record recordCall holds (callAsked), so the entry says who decided.
import {
  LIMITS, addToIndex, bound, callEntry, facets, looksLikeCall, matches, newId, notACallEntry, stoppedEntry, taskEntry,
} from '../core/activity_entries.js';
import { callSignature } from '../core/guard.js';
import { summariseBinary } from '../core/result_format.js';
import { eligibleOrigin } from '../core/selector.js';
import { localKeys } from './site_state.js';
import { ACTIVITY } from '../../shared/core/messages.js';

const INDEX = 'activity';
const entryKey = (id) => `activity:${id}`;
const local = () => chrome.storage.local;

let pending = [];
let chain = Promise.resolve();

/**
 * Queues entries for the next write; resolves once they are stored. An entry
 * may be a function that makes it, called when its batch is written.
 */
function store(...entries) {
  pending.push(...entries);
  chain = chain.then(flush).catch((err) => console.error('gnosis: could not store activity', err));
  return chain;
}

/** The entry a queued item stands for (null when making it failed: the rest of the batch is still written). */
function made(item) {
  if (typeof item !== 'function') return item;
  try {
    return item();
  } catch (err) {
    console.error('gnosis: could not make an activity entry', err);
    return null;
  }
}

async function flush() {
  if (!pending.length) return;
  const queued = pending;
  pending = [];
  const index = (await local().get(INDEX))[INDEX];
  const batch = queued.map(made).filter(Boolean);
  if (!batch.length) return;
  const next = addToIndex(index, batch, Date.now());
  const kept = new Set(next.index.map((i) => i.id));
  await local().set({ [INDEX]: next.index, ...Object.fromEntries(batch.filter((e) => kept.has(e.id)).map((e) => [entryKey(e.id), e])) });
  if (next.dropped.length) await local().remove(next.dropped.map(entryKey));
}

/** Runs fn after every queued write. */
function afterWrites(fn) {
  chain = chain.then(flush).then(fn);
  return chain;
}

const inflight = new Map(); // origin -> Set of the records of calls running now

/**
 * Runs one call (run() → the host's reply) and records it with its time,
 * duration, decision and result, plus extra (an agent task's key, so the
 * log shows the call under its task); onEntry(id) learns the entry's id (the
 * images attached later are added to it: recordImages). Returns the reply.
 */
export async function recordCall(origin, call, run, extra = {}, { onEntry } = {}) {
  const started = Date.now();
  const rec = { id: newId(started), signature: callSignature(call), approval: null };
  onEntry?.(rec.id);
  if (!inflight.has(origin)) inflight.set(origin, new Set());
  inflight.get(origin).add(rec);
  let reply;
  try {
    reply = await run();
    return reply;
  } finally {
    inflight.get(origin)?.delete(rec);
    if (!inflight.get(origin)?.size) inflight.delete(origin);
    const ended = Date.now();
    const { approval } = rec;
    store(() => ({ ...callEntry({ origin, call, started, ended, reply, approval, summarise: summariseBinary, id: rec.id }), ...extra }));
  }
}

/**
 * Adds to a call's entry what became of its result's images once the page
 * delivered it ({n, attached, name?, sentWidth?, sentHeight?, why?} each):
 * only to an entry of the site that reports it, and only once.
 */
export function recordImages(entryId, images, origin) {
  if (typeof entryId !== 'string' || !entryId || !Array.isArray(images) || !images.length) return Promise.resolve();
  return afterWrites(async () => {
    const key = entryKey(entryId);
    const entry = (await local().get(key))[key];
    if (entry?.kind === 'call' && entry.origin === origin && !entry.images) await local().set({ [key]: { ...entry, images: images.slice(0, 50) } });
  });
}

/**
 * The host asks the person about a call: finds the running call it is about
 * (same site, tool and arguments, not asked yet) and returns the object its
 * entry takes the answer from ({answer, remember, auto, error, entry}: entry
 * is the id the call's activity entry will have).
 * @param {{origin: string, capability: string, arguments?: object}} question
 */
export function callAsked(question) {
  const signature = callSignature(question);
  for (const rec of inflight.get(question.origin) || []) {
    if (rec.signature === signature && !rec.approval) {
      rec.approval = { answer: null, entry: rec.id };
      return rec.approval;
    }
  }
  return { answer: null, entry: null };
}

/**
 * Records a reply the gate refused, when it was a new reply (it arrived
 * while the bridge watched) and a finished attempt at a call; never the
 * replies already on the page when the site was armed.
 * @param {{text: string, arrived?: boolean}} message the content script's message
 */
export function recordNotACall(origin, message, reason) {
  if (message?.arrived === true && looksLikeCall(message?.text)) store(notACallEntry({ origin, text: message.text, reason }));
}

/** Records a call the bridge's safety limits stopped. */
export function recordStopped(origin, call, reason) {
  store(stoppedEntry({ origin, call, reason }));
}

/** The index within the bound (entries past it are removed on the way). */
async function readIndex() {
  const index = (await local().get(INDEX))[INDEX] || [];
  const b = bound(index, Date.now());
  if (b.dropped.length) {
    await local().set({ [INDEX]: b.index });
    await local().remove(b.dropped.map(entryKey));
  }
  return b.index;
}

/**
 * What the Activity view shows: the entries that pass the filter, newest
 * first, from offset (at most limit of them), how many pass in all, the
 * filter's choices and the bound.
 */
async function list({ filter = {}, offset = 0, limit = 50 } = {}) {
  const index = await afterWrites(readIndex);
  const passing = index.filter((i) => matches(i, filter)).reverse();
  const start = Math.max(0, Number(offset) || 0);
  const page = passing.slice(start, start + Math.max(0, Math.min(Number(limit) || 50, LIMITS.maxEntries)));
  const got = page.length ? await local().get(page.map((i) => entryKey(i.id))) : {};
  return {
    ok: true, total: index.length, matched: passing.length, limits: LIMITS, ...facets(index),
    entries: page.map((i) => got[entryKey(i.id)]).filter(Boolean),
  };
}

/** Clears the entries of one site, or all of them (and any entry the index lost). */
async function clear({ origin } = {}) {
  return afterWrites(async () => {
    const index = (await local().get(INDEX))[INDEX] || [];
    if (origin) {
      const gone = index.filter((i) => i.origin === origin);
      await local().set({ [INDEX]: index.filter((i) => i.origin !== origin) });
      await local().remove(gone.map((i) => entryKey(i.id)));
      return { ok: true, cleared: gone.length };
    }
    const keys = (await localKeys()).filter((k) => k.startsWith(entryKey('')));
    await local().remove([INDEX, ...keys]);
    return { ok: true, cleared: index.length };
  });
}

/** The options page's Activity view, for the site of a tab when it has one. */
export function activityUrl(tabUrl) {
  const origin = eligibleOrigin(tabUrl || '');
  return chrome.runtime.getURL(`bridge/options/options.html${origin ? `?origin=${encodeURIComponent(origin)}` : ''}#activity`);
}

/** The agent's API key, wherever the side panel keeps it ('agent.apiKey'): masked by value in its tasks' entries. */
async function agentKeys() {
  const key = 'agent.apiKey';
  const [local, session] = await Promise.all([chrome.storage.local.get(key).catch(() => ({})), chrome.storage.session.get(key).catch(() => ({}))]);
  return [local[key], session[key]].filter((k) => typeof k === 'string' && k.trim().length >= 8);
}

const MENU = 'gnosis-activity';

/**
 * The toolbar button's own menu (right-click on the icon that carries the
 * page's badge) gets "Activity on this site", which opens the Activity view
 * filtered to the tab's site. Also closes storage.local to content scripts.
 */
export function initActivity() {
  // No content script reads storage: keep the log and the remembered choices out
  // of their reach where the browser can (Chromium; Firefox has no such switch).
  chrome.storage.local.setAccessLevel?.({ accessLevel: 'TRUSTED_CONTEXTS' })?.catch?.(() => {});
  if (!chrome.contextMenus?.create) return;
  chrome.runtime.onInstalled.addListener(() => {
    chrome.contextMenus.create({ id: MENU, title: 'Activity on this site', contexts: ['action'] }, () => void chrome.runtime.lastError);
  });
  chrome.contextMenus.onClicked.addListener((info, tab) => {
    if (info.menuItemId === MENU) chrome.tabs.create({ url: activityUrl(tab?.url) }).catch(() => {});
  });
}

/** Message handlers, merged into the bridge's map: extension pages only. */
export const handlers = {
  [ACTIVITY.LIST]: { from: 'extension', run: (m) => list(m) },
  [ACTIVITY.CLEAR]: { from: 'extension', run: (m) => clear(m) },
  [ACTIVITY.TASK]: {
    from: 'extension',
    async run(m) {
      await store(taskEntry({ ...m, known: await agentKeys() }));
      return { ok: true };
    },
  },
};
