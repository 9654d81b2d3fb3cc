// The side-panel agent's desktop grants as a person sees and edits them, in
// the two places that show them: the Side Panel's Settings → Desktop and the
// options page's Agent view. Both use this one view over the worker's one
// logic (agent/worker/desktop_worker.js DESKTOP.GET_GRANTS, SET_GRANTS and
// FORGET_CHOICES), so the two places show the same decisions.
//
// The grants go by what a call does, not by the tool's name
// (shared/core/desktop_kinds.js): one line per kind — Looking, Pointing and
// clicking, Typing and keys — with what it covers, the server's tools that
// do it, and Allow / Ask / Block. Suggested sets the suggestion (looking
// runs, acting asks), Save writes them. Allowing typing takes a tick that
// says what it means: any text the agent reads could then type commands.
// Below, every choice remembered from the approval windows, with when and
// for how long, each with Forget, and Forget all. Extension pages only.
import { createPanelLink } from '../agent/core/panel_contract.js';
import { DESKTOP_KINDS, KIND_WORDS } from './core/desktop_kinds.js';
import { CHOICES_KEY } from './desktop_decisions.js';
import { DECISIONS, DECISION_LABELS, DECISION_SHORT } from '../bridge/core/grants.js';

/** A decision as the pages name it (Allow, Ask each time, Block). */
export const decisionLabel = (d) => DECISION_LABELS[d] || d;

const SAVED = 'Saved: the host asks the extension about each call, which answers by its kind.';
const NOTHING = 'Nothing is granted yet: every desktop call is blocked until you save these.';
const CHANGED = 'Changed, not saved yet.';
const TYPING_RISK = 'Allow typing without asking only if you trust everything the agent will read: a web page, a document or a window on the desktop can tell the model to type a command into a terminal and press Enter, and it would run without a window.';

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** When a choice was made, as the person's clock says. */
const timeOf = (at) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** How long a remembered choice lasts, in words. */
export function choiceSpan(c) {
  if (c.scope === 'task') return `for the task “${String(c.taskText || 'this task').slice(0, 80)}” only, while it stays on the desktop`;
  return 'for this browser session';
}

/**
 * Wires one place's grant list.
 * @param {{list:HTMLElement, state:HTMLElement, suggested:HTMLButtonElement, save:HTMLButtonElement, prefix:string,
 *   send?:(m:object) => Promise<object>, onSaved?:() => void}} o
 *   prefix names the radio groups and the ids of what it adds (unique per page); onSaved: the grants were saved
 * @returns {{load():Promise<object>}} load reads the grants again; it resolves with the worker's answer
 *   ({ok, offered, why?, kinds?…}) and keeps choices changed and not saved
 */
export function createDesktopGrants(o) {
  const link = createPanelLink(o.send || ((m) => chrome.runtime.sendMessage(m)));
  let grants = null; // the last GET_GRANTS answer that offered the desktop
  let choices = {}; // kind -> decision shown
  let dirty = false;

  // What this view adds after the state line: the typing warning and the remembered choices.
  const risk = el('div', 'desktop-typing-risk');
  risk.id = `${o.prefix}-typing-risk`;
  risk.hidden = true;
  const riskLabel = el('label', 'check');
  const riskBox = el('input');
  riskBox.type = 'checkbox';
  riskBox.id = `${o.prefix}-typing-confirm`;
  riskLabel.append(riskBox, el('span', '', 'I understand: the agent may type and press keys on this computer without asking me, whatever it reads.'));
  risk.append(el('p', '', TYPING_RISK), riskLabel);
  const remembered = el('section', 'desktop-remembered');
  remembered.id = `${o.prefix}-remembered`;
  const rememberedTitle = el('h3', '', 'Remembered from approval windows');
  rememberedTitle.id = `${o.prefix}-remembered-title`;
  remembered.setAttribute('aria-labelledby', rememberedTitle.id);
  const rememberedList = el('ul', 'desktop-remembered-list');
  rememberedList.id = `${o.prefix}-remembered-list`;
  const rememberedNone = el('p', 'muted', 'Nothing remembered: every call of a kind set to Ask opens the approval window.');
  const forgetAll = el('button', 'small', 'Forget all');
  forgetAll.type = 'button';
  forgetAll.id = `${o.prefix}-forget-all`;
  const rememberedState = el('p', 'muted');
  rememberedState.setAttribute('role', 'status');
  remembered.append(rememberedTitle, rememberedList, rememberedNone, forgetAll, rememberedState);
  o.list.after(risk);
  o.state.after(remembered);

  const say = (text, kind = 'muted') => {
    o.state.textContent = text;
    o.state.className = kind;
  };

  function segmented(kind) {
    const group = el('div', 'segmented');
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', `Grant for ${KIND_WORDS[kind].name.toLowerCase()}`);
    for (const d of DECISIONS) {
      const label = el('label', d);
      const input = el('input');
      input.type = 'radio';
      input.name = `${o.prefix}-${kind}`;
      input.value = d;
      input.checked = choices[kind] === d;
      input.setAttribute('aria-label', DECISION_LABELS[d]);
      input.addEventListener('change', () => {
        choices[kind] = d;
        dirty = true;
        showRisk();
        say(CHANGED);
      });
      label.append(input, el('span', '', DECISION_SHORT[d]));
      group.append(label);
    }
    return group;
  }

  /** The typing warning shows while typing is set to Allow and was not saved so. */
  function showRisk() {
    const was = grants?.kinds?.type === 'allow' && grants.configured;
    risk.hidden = !(choices.type === 'allow' && !was);
    if (risk.hidden) riskBox.checked = false;
  }

  function show() {
    o.list.replaceChildren(...DESKTOP_KINDS.map((kind) => {
      const li = el('li', 'desktop-grant');
      li.dataset.kind = kind;
      const info = el('div', 'desktop-grant-info');
      info.append(el('strong', 'desktop-grant-kind', KIND_WORDS[kind].name), el('span', 'desktop-grant-uses', KIND_WORDS[kind].what));
      const tools = Object.entries(grants.toolKinds || {}).filter(([, ks]) => ks.includes(kind)).map(([name]) => name);
      if (tools.length) {
        const through = el('span', 'desktop-grant-tools', 'through ');
        tools.forEach((t, i) => through.append(...(i ? [', '] : []), el('code', 'tool-name', t)));
        info.append(through);
      }
      li.append(info, segmented(kind));
      return li;
    }));
    showRisk();
  }

  function showChoices(list) {
    const mine = Array.isArray(list) ? list : [];
    rememberedList.replaceChildren(...mine.map((c) => {
      const li = el('li');
      li.dataset.kind = c.kind;
      li.dataset.scope = c.scope;
      const text = el('span', '', `${KIND_WORDS[c.kind]?.name || c.kind} on ${c.prefix}.*, ${choiceSpan(c)} (since ${timeOf(c.at)})`);
      const forget = el('button', 'small', 'Forget');
      forget.type = 'button';
      forget.setAttribute('aria-label', `Forget ${KIND_WORDS[c.kind]?.name || c.kind} ${choiceSpan(c)}`);
      forget.addEventListener('click', () => forgetChoices([c.id]));
      li.append(text, forget);
      return li;
    }));
    rememberedNone.hidden = mine.length > 0;
    forgetAll.hidden = mine.length === 0;
  }

  async function forgetChoices(ids) {
    const r = await link.forgetDesktopChoices(ids);
    if (!r?.ok) {
      rememberedState.textContent = `Not forgotten: ${r?.error || 'no answer'}`;
      return;
    }
    rememberedState.textContent = ids ? 'Forgotten.' : 'All forgotten: the next call of each kind set to Ask opens the approval window.';
    showChoices(r.choices);
  }

  async function load() {
    const g = await link.desktopGrants();
    showChoices(g?.choices);
    if (!g?.ok || !g.offered) {
      grants = null;
      o.list.replaceChildren();
      risk.hidden = true;
      say(g?.ok ? '' : `The agent's grants could not be read: ${g?.error || 'no answer'}.`, g?.ok ? 'muted' : 'error');
      return g || { ok: false };
    }
    const before = dirty ? choices : {};
    grants = g;
    choices = Object.fromEntries(DESKTOP_KINDS.map((k) => [k, k in before ? before[k] : g.configured ? g.kinds[k] : g.suggested[k]]));
    dirty = DESKTOP_KINDS.some((k) => k in before);
    show();
    say(dirty ? CHANGED : g.configured ? SAVED : NOTHING);
    return g;
  }

  o.suggested.addEventListener('click', () => {
    if (!grants) return;
    choices = { ...grants.suggested };
    dirty = true;
    show();
    say('The suggestion, not saved yet.');
  });
  o.save.addEventListener('click', async () => {
    if (!grants) return;
    if (!risk.hidden && !riskBox.checked) {
      say('Not saved: tick the box under the grants if you mean to let the agent type without asking, or choose Ask.', 'error');
      riskBox.focus();
      return;
    }
    say('Saving…');
    const r = await link.saveDesktopGrants({ ...choices }, { typingConfirmed: choices.type === 'allow' && riskBox.checked });
    if (!r?.ok) {
      say(`Not saved: ${r?.error || 'no answer'}`, 'error');
      return;
    }
    grants = { ...grants, configured: true, decisions: r.decisions, kinds: r.kinds };
    dirty = false;
    showRisk();
    showChoices(r.choices);
    say(SAVED);
    o.onSaved?.();
  });
  forgetAll.addEventListener('click', () => forgetChoices(null));
  // A choice remembered (or forgotten) elsewhere shows here at once.
  chrome.storage?.onChanged?.addListener((changes, area) => {
    if (area === 'session' && changes[CHOICES_KEY]) showChoices(changes[CHOICES_KEY].newValue);
  });
  return { load };
}
