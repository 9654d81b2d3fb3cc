// What a model reply shows while it streams and once it is complete: its
// thinking without the tags (and without a tag the stream has cut in half,
// so no stray "<" or "<t" shows before "<think>" is complete), and the two
// ways a long text is cut: the newest part of a stream, the start of a
// finished thought. The Side Panel's log and the Page Assistant's bar both
// read replies through here. Pure.

/** Longest step summary shown on the page, in characters. */
export const SUMMARY_MAX = 240;

/** Collapses whitespace and keeps the newest `max` characters (a stream grows at its end). */
export function truncateTail(text, max = SUMMARY_MAX) {
  const s = String(text ?? '').replace(/\s+/g, ' ').trim();
  return s.length <= max ? s : `…${s.slice(s.length - (max - 1)).trimStart()}`;
}

/** Collapses whitespace and keeps the first `max` characters (a finished thought reads from its start). */
export function truncateHead(text, max = SUMMARY_MAX) {
  const s = String(text ?? '').replace(/\s+/g, ' ').trim();
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The thinking part of a (possibly partial) model reply: the <think> body
 * when there is one, otherwise whatever precedes <action>; tags removed, and
 * a tag cut in half at the end of a stream ("<", "<t", "</thi") left out.
 */
export function thinkingOf(reply) {
  const text = String(reply ?? '');
  const open = text.indexOf('<think>');
  let body;
  if (open >= 0) {
    const close = text.indexOf('</think>', open);
    body = text.slice(open + 7, close >= 0 ? close : undefined);
  } else {
    const action = text.indexOf('<action>');
    body = action >= 0 ? text.slice(0, action) : text;
  }
  return body.replace(/<\/?[a-z]*>?$/i, '').replace(/<\/?(think|action)>/g, '');
}
