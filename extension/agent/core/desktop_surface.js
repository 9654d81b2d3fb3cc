// The surfaces a task acts on: the browser tab and the computer's desktop,
// behind the one `browser` interface AgentSession drives (start, observe,
// act, stop). A task starts on the surface the person chose; the model's
// SwitchSurface(surface='tab'|'desktop') moves it, and the next screenshot
// is of the surface it moved to. Every observation and result says which
// surface it belongs to (the panel shows it on each step). The tab stays
// attached while the task is on the desktop, so switching back is at once;
// stop() lets both go (the desktop's call in flight is cancelled).
//
// Moving to the desktop while nothing is granted to the agent there asks the
// person first (askGrants: the suggested grants, accepted with one click),
// then goes on. A refusal is the model's to read where it can act on it: a
// switch the person declined, or a refused desktop screenshot in a task that
// has the tab (it goes back there, and its next observation says why); a
// task that began on the desktop and cannot see it ends saying why. Pure:
// both surfaces and the question are injected.

import { CODES } from '../../shared/core/codes.js';
import { CodedError } from '../../shared/core/coded_error.js';
import { NOT_OFFERED } from './panel_contract.js';

/** The codes of a failed move to the desktop that the model reads as the switch's result (any other ends the task). */
const MODEL_READS = new Set([CODES.FORBIDDEN, NOT_OFFERED]);

/** Why a task may not move to the desktop: nothing granted there and the person did not grant it now. */
export const NOT_GRANTED = 'nothing is granted to the agent on the desktop yet, and the suggested grants were not accepted: grant them in Settings → Desktop';

/** The prompt's lines on the surfaces, filled into {{surfaces}} of the system prompt. */
export function surfacesPrompt(desktop) {
  if (!desktop?.offered) return '';
  return [
    '',
    'Surfaces: besides the browser tab you can operate the computer\'s desktop (the whole screen, its windows and programs) through the desktop server "' + desktop.prefix + '".',
    '- SwitchSurface(surface=\'desktop\') or SwitchSurface(surface=\'tab\') - move to the other surface; the next screenshot shows it. Use the desktop for programs outside the browser (a terminal, a file manager, a native app) and the tab for the web page. Switch back when the work there is done.',
    '- An observation of the desktop starts with "Surface: desktop"; one of the tab gives the page\'s URL. Coordinates always refer to the screenshot you were sent, whichever surface it shows.',
    '- On the desktop these actions work: Click, RightClick, DoubleClick, Hover, Drag, Scroll, Type, Hotkey, PressEnter, Wait, TakeNote. Click a window first so it has the keyboard focus before you Type. Tab-only actions (Launch, PressBack, PressHome, SelectOption, GetUrl, Upload, Download) are refused there.',
  ].join('\n');
}

/**
 * @param {object} o
 * @param {object} o.tab the tab's browser (panel_contract.js createPanelLink tab())
 * @param {object|null} o.desktop the desktop's (createPanelLink desktop()); null when not offered
 * @param {'tab'|'desktop'} [o.start] where the task starts
 * @param {string} [o.why] why the desktop is not offered (a SwitchSurface to it says so)
 * @param {{offered:boolean, prefix:string}|null} [o.state] the desktop's state (its server, for the prompt)
 * @param {(grants:{tools:string[], suggested:object, uses:object, server:string}, signal?:AbortSignal) => Promise<boolean>} [o.askGrants]
 *   asks the person to grant the suggestion when nothing is granted on the desktop; true once granted
 */
export function createSurfaces({ tab, desktop, start = 'tab', why = '', state = null, askGrants }) {
  let current = start === 'desktop' && desktop ? 'desktop' : 'tab';
  // A task asked to start on a desktop that is not offered ends at once, saying why.
  const refused = start === 'desktop' && !desktop;
  let tabAttached = false;
  let tabEver = false;

  async function startTab(opts) {
    const target = await tab.start(opts);
    tabAttached = true;
    tabEver = true;
    return target;
  }

  /** The desktop, once the person granted it when nothing was. */
  async function enterDesktop(signal) {
    const target = await desktop.start();
    const g = target.grants;
    if (g && !g.configured && !(askGrants && (await askGrants(g, signal)))) throw new CodedError(CODES.FORBIDDEN, NOT_GRANTED);
    return target;
  }

  /** The tab's observation after a refused desktop screenshot: the task is back on the tab, and the model reads why. */
  async function backToTab(err) {
    current = 'tab';
    if (!tabAttached) await startTab({ resume: tabEver });
    const o = await tab.observe();
    const note = `The desktop screenshot was refused (${err.message}). You are on the browser tab again: go on here, or finish.`;
    return { ...o, notes: [...(o.notes || []), note], surface: 'tab' };
  }

  return {
    get surface() { return current; },
    /** The system prompt's surfaces lines ('' when the desktop is not offered). */
    promptLines: desktop ? surfacesPrompt(state) : '',
    async start(opts = {}) {
      if (refused && !opts.resume) throw new Error(`the desktop is not available: ${why || 'no desktop server is set up'}`);
      if (current === 'desktop') {
        const target = await enterDesktop(opts.signal);
        return { title: target.title, url: target.url, server: target.server, surface: 'desktop' };
      }
      return { ...(await startTab(opts)), surface: 'tab' };
    },
    async observe() {
      if (current === 'desktop') {
        try {
          return { ...(await desktop.observe()), surface: 'desktop' };
        } catch (err) {
          if (err?.code !== CODES.FORBIDDEN || !tabEver) throw err;
          return backToTab(err);
        }
      }
      if (!tabAttached) await startTab({ resume: tabEver });
      return { ...(await tab.observe()), surface: 'tab' };
    },
    async act(action, o = {}) {
      if (action.name === 'SwitchSurface') {
        const to = action.args.surface;
        if (to === current) return { text: `already on the ${to}`, surface: current };
        if (to === 'desktop' && !desktop) return { text: `the desktop is not available: ${why || 'no desktop server is set up'}`, error: true, surface: current };
        if (to === 'tab' && !tabAttached) await startTab({ resume: tabEver });
        if (to === 'desktop') {
          try {
            await enterDesktop(o.signal);
          } catch (err) {
            if (!MODEL_READS.has(err?.code)) throw err;
            return { text: `the desktop is not available: ${err?.message || err}`, error: true, surface: current };
          }
        }
        current = to;
        return { text: to === 'desktop' ? 'now on the desktop: the next screenshot shows the whole screen' : 'now on the browser tab: the next screenshot shows the page', surface: to };
      }
      const r = await (current === 'desktop' ? desktop : tab).act(action, o);
      return { ...r, surface: current };
    },
    async stop() {
      tabAttached = false;
      await Promise.all([tab.stop(), desktop?.stop()]);
    },
  };
}
