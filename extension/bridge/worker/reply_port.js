// One message the content script extracted from the chat: gate → dedup →
// safety → execute → the text to inject, judged one at a time per origin,
// and an acknowledgement of every verdict in storage.session.
import { parseToolCall } from '../core/parser.js';
import { admitCall, admitMessage, freshSafety } from '../core/guard.js';
import { formatReply } from '../core/result_format.js';
import { getSession, isArmed, loadSettings, senderOrigin, session, setBadge, setLastEvent } from './site_state.js';
import { prefixes } from './host_queries.js';
import { stop } from './arming.js';
import { execute } from './call_runner.js';

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

const acks = new Map(); // origin -> how many extracted messages were judged

/**
 * Records that the bridge judged one extracted message of the sender's
 * origin, whatever the verdict: storage.session "ack:<origin>" holds the
 * count, the message's index in the page and the verdict, so the tests know
 * a message was seen and answered, not merely that nothing happened yet.
 */
export async function acknowledged(message, sender, verdict) {
  let v;
  try {
    v = await verdict;
    return v;
  } finally {
    const origin = senderOrigin(sender);
    if (origin) {
      const count = (acks.get(origin) || 0) + 1;
      acks.set(origin, count);
      const index = Number.isInteger(message?.index) ? message.index : -1;
      await session.set({ [`ack:${origin}`]: { count, index, action: v?.action || 'error', reason: v?.reason || '' } }).catch(() => {});
    }
  }
}

/** One extracted message: gate → dedup → safety → execute → the text to inject. */
export async function extracted(message, sender) {
  const origin = senderOrigin(sender);
  if (!origin || !(await isArmed(origin))) return { action: 'none', reason: 'not armed' };
  const text = typeof message.text === 'string' ? message.text : '';
  const index = Number.isInteger(message.index) ? message.index : 0;
  const conversation = typeof message.conversation === 'string' ? message.conversation.slice(0, 2048) : '/';
  const id = typeof message.id === 'string' ? message.id.slice(0, 100) : '';
  const page = typeof message.page === 'string' ? `${sender.tab?.id}/${message.page.slice(0, 100)}` : '';
  if (!id || !page) return { action: 'none', reason: 'no message id' };
  const gate = parseToolCall(text, { prefixes: await prefixes() });
  if (!gate.ok) return { action: 'none', reason: gate.reason };

  const settings = await loadSettings(origin);
  // Check-and-record under a per-origin lock: two tabs showing the same
  // conversation must not both run its newest call.
  const verdict = await serially(origin, async () => {
    const seen = admitMessage(await getSession(`seen:${origin}`, []), { conversation, index, text, id, page, streamed: message.streamed === true });
    if (!seen.fresh) return { action: 'none', reason: seen.reason };
    await session.set({ [`seen:${origin}`]: seen.seen });
    if (message.baseline) return { action: 'none', reason: 'baseline' };
    const admitted = admitCall(await getSession(`safety:${origin}`, freshSafety()), gate.call, { maxConsecutive: settings.maxConsecutive }, conversation);
    if (!admitted.allowed) return { action: 'stopped', code: admitted.code, reason: admitted.reason };
    await session.set({ [`safety:${origin}`]: admitted.state });
    return null;
  });
  if (verdict?.action === 'stopped') {
    await stop(origin, verdict.reason);
    return { ...verdict, reason: `Gnosis ${verdict.reason}. Start again from the options page.` };
  }
  if (verdict) return verdict;

  const tabId = sender.tab.id;
  await setBadge(tabId, 'running', gate.call.capability);
  const reply = await execute(origin, tabId, gate.call);
  if (!(await isArmed(origin))) return { action: 'none', reason: 'stopped while running' };
  await setLastEvent(origin, { kind: 'executed', capability: gate.call.capability, ok: !!reply.ok, code: reply.code });
  await setBadge(tabId, reply.ok ? 'armed' : 'error', reply.ok ? undefined : reply.code);
  return { action: 'inject', text: formatReply(reply, { maxChars: settings.maxChars }), autoSend: settings.autoSend };
}
