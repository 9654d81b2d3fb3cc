// Which assistant reply is new: the chat bridge runs a reply only when it saw
// the reply arrive, never because of where it stands or what it says. Pure
// state transitions over what the content script observes of the newest
// reply (bridge/page/observe.js feeds them); tested with node --test.
//
// A reply arrives when, while the bridge watches,
//   - it is seen being written: the newest reply's element grows from a
//     non-empty text to a longer one that starts with it (streaming), or
//   - it follows a message sent by the person or by the bridge: the newest
//     reply is an element placed after the one that was newest when the
//     message was sent, or that same element with a new text, or the first
//     reply of a conversation that had none.
// Everything else the newest slot can show was on the page already: the
// replies present when the bridge started (a reload, Start again), replies a
// windowed or virtualised list mounts again while scrolling, and those of a
// conversation switched to in place. Those are not run, and say why.
//
// One reply keeps its id while its element streams (its text may change as
// the site renders it), and when the site swaps the element for a new one
// with the same text in the same place (a remount when streaming ends: the
// reply before it is the same element). An element emptied and
// written again is a new reply, and so is an element whose reply the bridge
// already took as a call getting a text that does not continue it.
//
// An observation is {key, text, count, prevKey, followsMark}: key names the
// newest element (null when no reply is on the page), prevKey the reply
// element before it (null for none), count how many replies the page shows,
// followsMark whether the newest comes after the element that was newest at
// the last sent message (still on the page).
//
// Imported by the content script (bridge/page/) and by node --test.

/** Why a reply did not arrive. */
const WHY = Object.freeze({
  /** It was on the page when the bridge started watching (Start, a reload, a navigation). */
  BASELINE: 'baseline',
  /** It came into view without being written or following a sent message (scrolling, switching conversations). */
  SHOWN: 'shown',
});

function initial() {
  return { ids: 0, reply: null, last: null, mark: null };
}

/** The state when the bridge starts watching: the newest reply now is an old one. */
function baseline(s, o) {
  const last = o.key === null ? null : { key: o.key, text: o.text, prevKey: o.prevKey ?? null };
  const reply = o.key === null ? null : { id: s.ids + 1, key: o.key, text: o.text, arrived: false, why: WHY.BASELINE };
  return { ids: s.ids + 1, reply, last, mark: null };
}

/** Does the observation follow the reply that was newest when a message was last sent? */
function followsSent(mark, o) {
  if (!mark || o.key === null) return false;
  if (mark.key === null) return o.count === 1;
  if (o.key === mark.key) return o.text !== mark.text;
  return o.followsMark === true;
}

/** One observation of the newest reply at time now. */
function observe(s, o, now) {
  if (o.key === null) return { ...s, last: null };
  const after = followsSent(s.mark, o);
  const r = s.reply;
  const rewritten = o.text === '' ? r?.text !== '' : !!r?.consumed && !o.text.startsWith(r.text);
  const remount = !after && o.text === r?.text && !!s.last && (o.prevKey ?? null) === s.last.prevKey;
  const same = !!r && (o.key === r.key ? !rewritten : remount);
  let reply = same ? { ...r, key: o.key, text: o.text } : { id: s.ids + 1, key: o.key, text: o.text, arrived: false, why: WHY.SHOWN };
  const grew = !!s.last && s.last.key === o.key && s.last.text !== '' && o.text.length > s.last.text.length && o.text.startsWith(s.last.text);
  if (!reply.arrived && (after || grew)) {
    reply = { id: reply.id, key: reply.key, text: reply.text, arrived: true, arrivedAt: now, by: grew ? 'written' : 'sent' };
  }
  return { ...s, ids: same ? s.ids : s.ids + 1, reply, last: { key: o.key, text: o.text, prevKey: o.prevKey ?? null } };
}

/** A message was sent (by the person or the bridge): o is the newest reply at that moment. */
function sent(s, o) {
  return { ...s, mark: { key: o.key, text: o.text } };
}

/** The bridge took the current reply as a call (ran it, or refused it): what follows needs a new message or new writing. */
function consumed(s) {
  return { ...s, mark: null, reply: s.reply && { ...s.reply, consumed: true } };
}

export { WHY, initial, baseline, observe, sent, consumed };
