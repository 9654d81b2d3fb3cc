// The text history of a conversation as a request replays it. Stored records
// (conversation_store.js) after the latest summary are grouped into entries:
// tasks, user answers, outcomes and notes as they are, and one round per step
// (the model's analysis and action, and the action's result). A request keeps
// at most the latest MAX_ROUNDS rounds; of the rounds left out it keeps every
// task text, user answer and outcome, so a long task never loses what it was
// asked to do.
//
// Pure module.

import { MAX_ROUNDS } from './prompt.js';

/**
 * The latest summary record and the records it does not cover, in order.
 * @returns {{summary: object|null, records: object[]}}
 */
export function unsummarised(records) {
  let summary = null;
  for (const r of records) if (r.kind === 'summary' && (!summary || r.seq > summary.seq)) summary = r;
  const upto = summary ? summary.upto : 0;
  return { summary, records: records.filter((r) => r.kind !== 'summary' && r.seq > upto) };
}

/**
 * Groups records into history entries: {kind:'task'|'user'|'outcome'|'note',
 * seq, text, ...} and {kind:'round', task, step, analysis, action, result,
 * observation} for the analysis/action/result records of one step.
 */
export function groupEntries(records) {
  const entries = [];
  let task = 0;
  let round = null;
  for (const r of records) {
    if (r.kind === 'analysis' || r.kind === 'action' || r.kind === 'result') {
      if (!round || round.step !== r.step || round.task !== task) {
        round = { kind: 'round', task, step: r.step, seq: r.seq, analysis: '', action: '', result: '', observation: null };
        entries.push(round);
      }
      round[r.kind] = r.text || '';
      if (r.observation) round.observation = r.observation;
      continue;
    }
    round = null;
    if (r.kind === 'task') task = r.seq;
    entries.push({ ...r });
  }
  return entries;
}

/** Entries kept from the rounds left out of a request: what the user said and how tasks ended. */
const KEPT_KINDS = new Set(['task', 'user', 'outcome']);

/**
 * Selects the text history of a request: the summary, then the entries from
 * the latest MAX_ROUNDS rounds on. Of the older entries, every task text,
 * user answer and outcome is kept (rounds and notes are left out), so a long
 * task never loses what it was asked to do.
 */
export function selectHistory(records, { maxRounds = MAX_ROUNDS } = {}) {
  const { summary, records: rest } = unsummarised(records);
  let entries = groupEntries(rest);
  const rounds = entries.filter((e) => e.kind === 'round');
  let dropped = 0;
  if (rounds.length > maxRounds) {
    dropped = rounds.length - maxRounds;
    const first = entries.indexOf(rounds[dropped]);
    entries = [...entries.slice(0, first).filter((e) => KEPT_KINDS.has(e.kind)), ...entries.slice(first)];
  }
  return { summary, entries, droppedRounds: dropped };
}

