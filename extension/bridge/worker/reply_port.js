// One reply the content script handed over on its call port
// (PORTS.BRIDGE_CALL): gate → arrival → dedup → safety → execute → the text
// to inject, judged one at a time per origin; the port carries the call's
// start (with the text the page writes should this worker go away while the
// call runs), the verdict, then the page's delivery report. Every verdict is
// acknowledged in storage.session, and every reply that is a call but is not
// run says why on the tab's badge and in the options page's Last line.
import { parseToolCall } from '../core/parser.js';
import { admitCall, admitReply, arrivalReason, freshSafety, replyDone } from '../core/guard.js';
import { formatReply, interruptedReply } from '../core/result_format.js';
import { getSession, isArmed, loadSettings, senderOrigin, session, setBadge, setLastEvent } from './site_state.js';
import { prefixes } from './host_queries.js';
import { stop } from './arming.js';
import { execute } from './call_runner.js';
import { recordCall, recordNotACall, recordStopped } from './activity.js';
import { senderKind } from '../../shared/core/router.js';
import { BRIDGE_CALL, PORTS } from '../../shared/core/messages.js';

const chains = new Map(); // origin -> the tail of its promise chain

/** Runs fn after every earlier fn of the same origin has finished. */
function serially(origin, fn) {
  const run = (chains.get(origin) || Promise.resolve()).then(fn);
  const tail = run.catch(() => {});
  chains.set(origin, tail);
  tail.then(() => {
    if (chains.get(origin) === tail) chains.delete(origin);
  });
  return run;
}

/** Replies whose call this worker is running: `${page}/${reply}`. */
const live = new Set();
const liveKey = (e) => `${e.page}/${e.reply}`;

/**
 * Records that the bridge judged one reply of the sender's origin, whatever
 * the verdict: storage.session "ack:<origin>" holds the count, the reply's
 * index in the page and the verdict, so the tests know a reply was seen and
 * answered, not merely that nothing happened yet.
 */
export async function acknowledged(message, sender, verdict) {
  let v;
  try {
    v = await verdict;
    return v;
  } finally {
    const origin = senderOrigin(sender);
    if (origin) {
      const key = `ack:${origin}`;
      const index = Number.isInteger(message?.index) ? message.index : -1;
      // The count lives in storage, so it goes on counting after a worker restart.
      await serially(key, async () => {
        const count = ((await getSession(key, null))?.count || 0) + 1;
        await session.set({ [key]: { count, index, action: v?.action || 'error', reason: v?.reason || '' } });
      }).catch(() => {});
    }
  }
}

/** A call this origin did not run: the badge and the Last line say why. */
async function skipped(origin, tabId, capability, reason) {
  await setLastEvent(origin, { kind: 'skipped', capability, reason });
  await setBadge(tabId, 'skipped', `${capability}: ${reason}`);
  return { action: 'none', call: true, skipped: true, reason };
}

/** Marks a reply's call ended at a time (default now; the page's clock says when it delivered the result). */
function done(origin, page, reply, at = Date.now()) {
  return serially(origin, async () => {
    await session.set({ [`seen:${origin}`]: replyDone(await getSession(`seen:${origin}`, []), page, reply, at) });
  });
}

/** Judges one reply: the verdict, after running its call when it is a new one. post(m) reaches the page. */
async function judge(m, sender, post) {
  const origin = senderOrigin(sender);
  if (!origin || !(await isArmed(origin))) return { action: 'none', reason: 'not armed' };
  const text = typeof m.text === 'string' ? m.text : '';
  const page = typeof m.page === 'string' && m.page ? `${sender.tab.id}/${m.page.slice(0, 100)}` : '';
  if (!page || !Number.isInteger(m.reply)) return { action: 'none', reason: 'no reply id' };
  const gate = parseToolCall(text, { prefixes: await prefixes() });
  if (!gate.ok) {
    recordNotACall(origin, m, gate.reason);
    return { action: 'none', reason: gate.reason };
  }
  const { capability } = gate.call;
  const tabId = sender.tab.id;
  if (m.arrived !== true) return skipped(origin, tabId, capability, arrivalReason(m.why));

  const settings = await loadSettings(origin);
  const conversation = typeof m.conversation === 'string' ? m.conversation.slice(0, 2048) : '/';
  const arrivedAt = Number.isFinite(m.arrivedAt) ? m.arrivedAt : Date.now();
  const reply = { page, reply: m.reply };
  // Check-and-record under a per-origin lock: two tabs showing the same
  // conversation must not both run its newest call.
  const verdict = await serially(origin, async () => {
    const seen = admitReply(await getSession(`seen:${origin}`, []), { ...reply, text, arrivedAt }, { now: Date.now(), running: (e) => live.has(liveKey(e)) });
    if (seen.interrupted) return { interrupted: true };
    if (!seen.fresh) return { skip: seen.reason };
    await session.set({ [`seen:${origin}`]: seen.seen });
    const admitted = admitCall(await getSession(`safety:${origin}`, freshSafety()), gate.call, { maxConsecutive: settings.maxConsecutive }, conversation);
    if (!admitted.allowed) return { action: 'stopped', call: true, code: admitted.code, reason: admitted.reason };
    await session.set({ [`safety:${origin}`]: admitted.state });
    live.add(liveKey(reply));
    return null;
  });
  if (verdict?.skip) return skipped(origin, tabId, capability, verdict.skip);
  if (verdict?.interrupted) {
    // This reply's call was running when the worker that ran it went away.
    await done(origin, page, m.reply);
    const why = `the extension's worker stopped while ${capability} was running; it may have run on the desktop`;
    await setLastEvent(origin, { kind: 'failed', stage: 'interrupted', error: why });
    await setBadge(tabId, 'error', why);
    const interrupted = await recordCall(origin, gate.call, async () => interruptedReply(capability));
    return { action: 'inject', call: true, text: formatReply(interrupted, { maxChars: settings.maxChars }), autoSend: settings.autoSend };
  }
  if (verdict?.action === 'stopped') {
    recordStopped(origin, gate.call, verdict.reason);
    await stop(origin, verdict.reason);
    return { ...verdict, reason: `Gnosis ${verdict.reason}. Start again from the options page.` };
  }

  let result;
  try {
    post({ type: BRIDGE_CALL.RUNNING, capability, interrupted: formatReply(interruptedReply(capability), { maxChars: settings.maxChars }) });
    await setBadge(tabId, 'running', capability);
    result = await recordCall(origin, gate.call, () => execute(origin, tabId, gate.call));
  } finally {
    live.delete(liveKey(reply));
  }
  await done(origin, page, m.reply);
  if (!(await isArmed(origin))) return { action: 'none', call: true, reason: 'stopped while running' };
  await setLastEvent(origin, { kind: 'executed', capability, ok: !!result.ok, code: result.code });
  const failed = result.ok ? undefined : badgeDetail(capability, result);
  await setBadge(tabId, result.ok ? 'armed' : 'error', failed);
  return { action: 'inject', call: true, text: formatReply(result, { maxChars: settings.maxChars }), autoSend: settings.autoSend, page, reply: m.reply, failed };
}

/** What the error badge says about a call that failed: its code, and for an interrupted call that it may have run. */
function badgeDetail(capability, result) {
  return result.interrupted ? `${result.code}: ${capability} was interrupted and may have run` : result.code;
}

/**
 * How the page's delivery went: the Last line and the badge (a delivered
 * error result keeps the error badge: failed is what it says).
 */
export async function reportDelivery(sender, { ok, stage, error }, failed) {
  const origin = senderOrigin(sender);
  if (!origin) return { ok: false };
  await setLastEvent(origin, { kind: ok ? 'delivered' : 'failed', stage, error });
  if (await isArmed(origin)) await setBadge(sender.tab.id, ok && !failed ? 'armed' : 'error', ok ? failed : error);
  return { ok: true };
}

/** Serves one call port from a content script. */
export function serveReplyPort(port, extensionOrigin) {
  if (port.name !== PORTS.BRIDGE_CALL) return;
  const sender = port.sender;
  if (senderKind(sender, chrome.runtime.id, extensionOrigin) !== 'content') {
    port.disconnect();
    return;
  }
  let open = true;
  let verdict = null;
  const post = (m) => {
    if (!open) return;
    try {
      port.postMessage(m);
    } catch {
      open = false;
    }
  };
  port.onDisconnect.addListener(() => {
    open = false;
  });
  port.onMessage.addListener(async (m) => {
    if (m?.type === BRIDGE_CALL.EXTRACTED && !verdict) {
      verdict = acknowledged(m, sender, judge(m, sender, post).catch((err) => ({ action: 'none', reason: String(err?.message || err) })));
      const { page, reply, failed, ...v } = await verdict;
      post({ type: BRIDGE_CALL.VERDICT, ...v });
      if (page) verdict = { page, reply, failed };
    } else if (m?.type === BRIDGE_CALL.DELIVERED && verdict?.page) {
      // When the page delivered it, by the page's clock: a reply that arrived later is a new one, however
      // long this worker takes to get here.
      const origin = senderOrigin(sender);
      if (origin) await done(origin, verdict.page, verdict.reply, Number.isFinite(m.at) ? Math.min(m.at, Date.now()) : Date.now());
      await reportDelivery(sender, { ok: m.ok === true, stage: String(m.stage || ''), error: typeof m.error === 'string' ? m.error : undefined }, verdict.failed);
    }
  });
}
