// One reply the content script handed over on its call port
// (PORTS.BRIDGE_CALL): gate → arrival → dedup → safety → execute → the text
// to inject, decided by core/judge.js and carried out here, one at a time
// per origin; the port carries the call's start (with the text the page
// writes should this worker go away while the call runs), the verdict, then
// the page's delivery report. Every reply that is a call but is not run says
// why on the tab's badge and in the options page's Last line.
import { freshSafety, replyDone } from '../core/guard.js';
import { ackEntry, admitReply, gateReply, ranReply, runningNotice, stateKeys, TEST_ACKS_KEY } from '../core/judge.js';
import { getSession, isArmed, loadSettings, senderOrigin, session, setBadge, setLastEvent } from './site_state.js';
import { prefixes } from './host_queries.js';
import { stop } from './arming.js';
import { execute } from './call_runner.js';
import { postImages, prepareImages } from './image_prep.js';
import { recordCall, recordImages, recordNotACall, recordStopped } from './activity_log.js';
import { senderKind } from '../../shared/core/router.js';
import { BRIDGE_CALL, PORTS } from '../../shared/core/messages.js';
import { inTurn } from '../../shared/core/in_turn.js';

/** Runs fn after every earlier fn of the same origin has finished. */
const serially = inTurn();

/** Replies whose call this worker is running: `${page}/${reply}`. */
const live = new Set();
const liveKey = (e) => `${e.page}/${e.reply}`;

/**
 * When a test asked for them (storage.session TEST_ACKS_KEY), records that
 * the bridge judged one reply of the sender's origin, whatever the verdict:
 * "ack:<origin>" holds the count, the reply's index in the page and the
 * verdict, so the tests know a reply was seen and answered, not merely that
 * nothing happened yet.
 */
export async function acknowledged(message, sender, verdict) {
  let v;
  try {
    v = await verdict;
    return v;
  } finally {
    const origin = senderOrigin(sender);
    if (origin && (await getSession(TEST_ACKS_KEY, false)) === true) {
      const key = stateKeys(origin).ack;
      // The count lives in storage, so it goes on counting after a worker restart.
      await serially(key, async () => {
        await session.set({ [key]: ackEntry(await getSession(key, null), message, v) });
      }).catch(() => {});
    }
  }
}

/** Marks a reply's call ended at a time (default now; the page's clock says when it delivered the result). */
function done(origin, page, reply, at = Date.now()) {
  const key = stateKeys(origin).seen;
  return serially(origin, async () => {
    await session.set({ [key]: replyDone(await getSession(key, []), page, reply, at) });
  });
}

/** Carries out a decision of core/judge.js (the writes are made under the lock, by the caller) and returns its verdict. */
async function apply(origin, tabId, d, go) {
  if (d.markDone) await done(origin, go.page, go.reply);
  if (d.lastEvent) await setLastEvent(origin, d.lastEvent);
  if (d.badge) await setBadge(tabId, ...d.badge);
  if (d.record?.call) await recordCall(origin, go.call, async () => d.record.call);
  if (d.record?.stopped) recordStopped(origin, go.call, d.record.stopped);
  if (d.disarm) await stop(origin, d.disarm);
  return d.verdict;
}

/** Judges one reply (core/judge.js): the verdict, after running its call when it is a new one. post(m) reaches the page. */
async function judge(m, sender, post) {
  const origin = senderOrigin(sender);
  const armed = Boolean(origin) && (await isArmed(origin));
  const tabId = sender.tab?.id;
  const gated = gateReply(m, { armed, tabId, prefixes: armed ? await prefixes() : [], now: Date.now() });
  if (gated.record?.notACall) recordNotACall(origin, m, gated.record.notACall);
  if (!gated.go) return apply(origin, tabId, gated);
  const { go } = gated;
  const settings = await loadSettings(origin);
  const keys = stateKeys(origin);
  const admitted = await serially(origin, async () => {
    const d = admitReply(go, {
      seen: await getSession(keys.seen, []), safety: await getSession(keys.safety, freshSafety()), settings,
      now: Date.now(), running: (e) => live.has(liveKey(e)),
    });
    if (d.writes) await session.set(Object.fromEntries(Object.entries(d.writes).map(([k, v]) => [keys[k], v])));
    if (d.run) live.add(liveKey(go));
    return d;
  });
  if (!admitted.run) return apply(origin, tabId, admitted, go);

  let result;
  let entry = '';
  try {
    post({ type: BRIDGE_CALL.RUNNING, ...runningNotice(go.capability, settings) });
    await setBadge(tabId, 'running', go.capability);
    result = await recordCall(origin, go.call, () => execute(origin, tabId, go.call), {}, { onEntry: (id) => { entry = id; } });
  } finally {
    live.delete(liveKey(go));
  }
  // The result's images are made ready while the call's end is recorded.
  const prepared = prepareImages(result, settings, go.capability);
  await done(origin, go.page, go.reply);
  const decision = ranReply(go, { result, armed: await isArmed(origin), settings });
  const { meta, payloads } = await prepared;
  if (decision.verdict.action === 'inject') {
    // The result's images go to the page one message each, ahead of the verdict that names them.
    if (meta.length) {
      postImages(post, payloads);
      decision.verdict.images = { capability: go.capability, list: meta };
      decision.verdict.entry = entry;
    }
  }
  return apply(origin, tabId, decision, go);
}

/**
 * How the page's delivery went: the Last line and the badge (a delivered
 * error result keeps the error badge: failed is what it says).
 */
export async function reportDelivery(sender, { ok, stage, error, images }, failed) {
  const origin = senderOrigin(sender);
  if (!origin) return { ok: false };
  // Delivered with an image missing is said as such: on the Last line and as an error badge.
  const attached = images?.filter((i) => i.attached).length || 0;
  const missing = ok && images?.some((i) => !i.attached && !i.byChoice) ? error : undefined;
  await setLastEvent(origin, ok ? { kind: 'delivered', stage, ...(images ? { attached } : {}), ...(missing ? { missing } : {}) } : { kind: 'failed', stage, error });
  if (await isArmed(origin)) await setBadge(sender.tab.id, ok && !failed && !missing ? 'armed' : 'error', ok ? failed || missing : error);
  return { ok: true };
}

/** What the page reported of each image ({n, attached, name?, sentWidth?, sentHeight?, why?}), checked: it comes from a page. */
export function reportedImages(list) {
  if (!Array.isArray(list)) return undefined;
  return list.slice(0, 50).map((i) => ({
    n: Number.isInteger(i?.n) ? i.n : 0, attached: i?.attached === true,
    ...(typeof i?.name === 'string' ? { name: i.name.slice(0, 100) } : {}),
    ...(Number.isInteger(i?.sentWidth) ? { sentWidth: i.sentWidth, sentHeight: Number(i.sentHeight) || 0 } : {}),
    ...(typeof i?.why === 'string' ? { why: i.why.slice(0, 300) } : {}),
    ...(i?.byChoice === true ? { byChoice: true } : {}),
  }));
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
      if (page) verdict = { page, reply, failed, entry: v.entry };
    } else if (m?.type === BRIDGE_CALL.DELIVERED && verdict?.page) {
      // When the page delivered it, by the page's clock: a reply that arrived later is a new one, however
      // long this worker takes to get here.
      const origin = senderOrigin(sender);
      if (origin) await done(origin, verdict.page, verdict.reply, Number.isFinite(m.at) ? Math.min(m.at, Date.now()) : Date.now());
      const images = reportedImages(m.images);
      await reportDelivery(sender, { ok: m.ok === true, stage: String(m.stage || ''), error: typeof m.error === 'string' ? m.error.slice(0, 1000) : undefined, images }, verdict.failed);
      if (images) await recordImages(verdict.entry, images, origin);
    }
  });
}
