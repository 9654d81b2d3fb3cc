// The surfaces a task acts on: the browser tab and the computer's desktop,
// behind the one `browser` interface AgentSession drives (start, observe,
// act, stop). A task starts on the surface the person chose; the model's
// SwitchSurface(surface='tab'|'desktop') moves it, and the next screenshot
// is of the surface it moved to. Every observation and result says which
// surface it belongs to (the panel shows it on each step). The tab stays
// attached while the task is on the desktop, so switching back is at once;
// stop() lets both go (the desktop's call in flight is cancelled). Pure:
// both surfaces are injected.

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
 * @param {object} o.tab the tab's browser (panel/browser_bridge.js)
 * @param {object|null} o.desktop the desktop's (panel/desktop_bridge.js); null when not offered
 * @param {'tab'|'desktop'} [o.start] where the task starts
 * @param {string} [o.why] why the desktop is not offered (a SwitchSurface to it says so)
 * @param {{offered:boolean, prefix:string}|null} [o.state] the desktop's state (its server, for the prompt)
 */
export function createSurfaces({ tab, desktop, start = 'tab', why = '', state = null }) {
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

  return {
    get surface() { return current; },
    /** The system prompt's surfaces lines ('' when the desktop is not offered). */
    promptLines: desktop ? surfacesPrompt(state) : '',
    async start(opts = {}) {
      if (refused && !opts.resume) throw new Error(`the desktop is not available: ${why || 'no desktop server is set up'}`);
      if (current === 'desktop') {
        const target = await desktop.start();
        return { ...target, surface: 'desktop' };
      }
      return { ...(await startTab(opts)), surface: 'tab' };
    },
    async observe() {
      if (current === 'desktop') return { ...(await desktop.observe()), surface: 'desktop' };
      if (!tabAttached) await startTab({ resume: tabEver });
      return { ...(await tab.observe()), surface: 'tab' };
    },
    async act(action, o = {}) {
      if (action.name === 'SwitchSurface') {
        const to = action.args.surface;
        if (to === current) return { text: `already on the ${to}`, surface: current };
        if (to === 'desktop' && !desktop) return { text: `the desktop is not available: ${why || 'no desktop server is set up'}`, error: true, surface: current };
        if (to === 'tab' && !tabAttached) await startTab({ resume: tabEver });
        if (to === 'desktop') await desktop.start();
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
