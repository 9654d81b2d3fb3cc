// Where the browser agent's desktop decisions by kind are kept
// (shared/core/desktop_kinds.js says what they mean):
//   the kind grants, per desktop server: the trusted store
//     (shared/trusted_store.js, "desktopKinds": {prefix: {look, point, type}}),
//     which no content script can write;
//   the remembered choices: storage.session ("desktopChoices": a list of
//     {id, kind, prefix, scope, task?, taskText?, page?, at, entry}), which
//     no content script can reach and the browser empties when it closes.
// The bridge's approval window writes a choice when the person allows and
// remembers; the agent's worker lists and forgets them (Settings → Desktop
// and the options page's Agent view), and drops a task's typing choice
// when the task leaves the desktop or ends. Thin glue over chrome.storage;
// every change of the list goes through one queue.
import { trustedGet, trustedSet } from './trusted_store.js';
import { inTurn } from './core/in_turn.js';
import { validKindGrants } from './core/desktop_kinds.js';

const GRANTS_KEY = 'desktopKinds';
/** storage.session key of the remembered choices. */
export const CHOICES_KEY = 'desktopChoices';
const queue = inTurn();

/** The kind grants saved for a desktop server, or null when none were. */
export async function kindGrantsOf(prefix) {
  const all = await trustedGet(GRANTS_KEY);
  const g = all && typeof all === 'object' ? all[prefix] : null;
  return validKindGrants(g) ? { look: g.look, point: g.point, type: g.type } : null;
}

/** Saves the kind grants of a desktop server. */
export function saveKindGrants(prefix, grants) {
  return queue(GRANTS_KEY, async () => {
    const all = (await trustedGet(GRANTS_KEY)) || {};
    await trustedSet(GRANTS_KEY, { ...all, [prefix]: { look: grants.look, point: grants.point, type: grants.type, at: Date.now() } });
  });
}

/** The remembered choices, oldest first. */
export async function desktopChoices() {
  const list = (await chrome.storage.session.get(CHOICES_KEY))[CHOICES_KEY];
  return Array.isArray(list) ? list : [];
}

/** Changes the list of choices: change(list) returns the new one. Resolves with it. */
function changeChoices(change) {
  return queue(CHOICES_KEY, async () => {
    const next = change(await desktopChoices());
    await chrome.storage.session.set({ [CHOICES_KEY]: next });
    return next;
  });
}

/** Remembers a choice; one of the same kind, server and scope (and task) is replaced. */
export function rememberDesktopChoice(choice) {
  const same = (c) => c.kind === choice.kind && c.prefix === choice.prefix && c.scope === choice.scope && (c.task || '') === (choice.task || '');
  const id = `${choice.kind}-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  return changeChoices((list) => [...list.filter((c) => !same(c)), { ...choice, id }]);
}

/** Keeps only the choices keep(choice) is true for. Resolves with those dropped. */
export async function keepDesktopChoices(keep) {
  let dropped = [];
  await changeChoices((list) => {
    dropped = list.filter((c) => !keep(c));
    return list.filter(keep);
  });
  return dropped;
}

/** Forgets every remembered choice, or those whose ids are given. */
export function forgetDesktopChoices(ids = null) {
  const gone = ids ? new Set(ids) : null;
  return keepDesktopChoices((c) => (gone ? !gone.has(c.id) : false));
}
