// The side-panel agent's desktop grants as a person sees and edits them, in
// the two places that show them: the Side Panel's Settings → Desktop and the
// options page's Agent view. Both use this one view over the worker's one
// logic (agent/worker/desktop_worker.js DESKTOP.GET_GRANTS and SET_GRANTS:
// which tools the desktop profile uses, the host's decisions for the
// extension's origin, the suggestion, and the merge on save), so the two
// places show the same decisions. One line per tool: its exact name, what
// the agent uses it for, and Allow / Ask / Block; Suggested sets the
// suggestion (Allow for a tool only the screenshot uses, Ask for every tool
// that acts), Save writes them to the host. Extension pages only; the
// requests go through the agent's panel contract (createPanelLink).
import { createPanelLink } from '../agent/core/panel_contract.js';
import { DECISIONS, DECISION_LABELS, DECISION_SHORT } from '../bridge/core/grants.js';

/** A decision as the pages name it (Allow, Ask each time, Block). */
export const decisionLabel = (d) => DECISION_LABELS[d] || d;

const SAVED = 'Saved in the host\'s configuration for the agent.';
const NOTHING = 'Nothing is granted yet: every desktop call is blocked until you save these.';
const CHANGED = 'Changed, not saved yet.';

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Wires one place's grant list.
 * @param {{list:HTMLElement, state:HTMLElement, suggested:HTMLButtonElement, save:HTMLButtonElement, prefix:string,
 *   send?:(m:object) => Promise<object>, onSaved?:() => void}} o
 *   prefix names the radio groups (unique per page); onSaved: the grants were saved
 * @returns {{load():Promise<object>}} load reads the grants again; it resolves with the worker's answer
 *   ({ok, offered, why?, tools?…}) and keeps choices changed and not saved for the tools still listed
 */
export function createDesktopGrants(o) {
  const link = createPanelLink(o.send || ((m) => chrome.runtime.sendMessage(m)));
  let grants = null; // the last GET_GRANTS answer that offered the desktop
  let choices = {}; // capability -> decision shown
  let dirty = false;

  const say = (text, kind = 'muted') => {
    o.state.textContent = text;
    o.state.className = kind;
  };

  function segmented(name) {
    const group = el('div', 'segmented');
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', `Grant for ${name}`);
    for (const d of DECISIONS) {
      const label = el('label', d);
      const input = el('input');
      input.type = 'radio';
      input.name = `${o.prefix}-${name}`;
      input.value = d;
      input.checked = choices[name] === d;
      input.setAttribute('aria-label', DECISION_LABELS[d]);
      input.addEventListener('change', () => {
        choices[name] = d;
        dirty = true;
        say(CHANGED);
      });
      label.append(input, el('span', '', DECISION_SHORT[d]));
      group.append(label);
    }
    return group;
  }

  function show() {
    o.list.replaceChildren(...grants.tools.map((name) => {
      const li = el('li', 'desktop-grant');
      li.dataset.name = name;
      const info = el('div', 'desktop-grant-info');
      info.append(el('code', 'tool-name', name));
      const uses = grants.uses?.[name];
      if (uses?.length) info.append(el('span', 'desktop-grant-uses', `for ${uses.join(', ')}`));
      li.append(info, segmented(name));
      return li;
    }));
  }

  async function load() {
    const g = await link.desktopGrants();
    if (!g?.ok || !g.offered) {
      grants = null;
      o.list.replaceChildren();
      say(g?.ok ? '' : `The agent's grants could not be read: ${g?.error || 'no answer'}.`, g?.ok ? 'muted' : 'error');
      return g || { ok: false };
    }
    const before = dirty ? choices : {};
    grants = g;
    choices = Object.fromEntries(g.tools.map((name) => [name, name in before ? before[name] : g.configured ? (g.decisions[name] || 'deny') : g.suggested[name]]));
    dirty = g.tools.some((name) => name in before);
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
    say('Saving…');
    const r = await link.saveDesktopGrants({ ...choices });
    if (!r?.ok) {
      say(`Not saved: ${r?.error || 'no answer'}`, 'error');
      return;
    }
    grants = { ...grants, configured: true, decisions: r.decisions };
    dirty = false;
    say(SAVED);
    o.onSaved?.();
  });
  return { load };
}
