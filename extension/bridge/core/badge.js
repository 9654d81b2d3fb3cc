// The toolbar badge per tab: what the chat bridge is doing on that tab. Pure.
import { progressPercent, progressText } from '../../shared/core/ui.js';

const BADGES = {
  off: { text: '', color: '#00000000', title: 'Gnosis' },
  armed: { text: 'ON', color: '#1a7f37', title: 'Gnosis: armed on this page' },
  skipped: { text: 'ON', color: '#9a6700', title: 'Gnosis: armed; did not run the last reply' },
  running: { text: '…', color: '#0969da', title: 'Gnosis: running a tool call' },
  error: { text: '!', color: '#cf222e', title: 'Gnosis: error (see the options page)' },
};

/** Badge text, background colour and title for a state; unknown states are 'off'. */
export function badgeFor(state, detail) {
  const b = BADGES[state] || BADGES.off;
  return { ...b, title: detail ? `${b.title}: ${detail}` : b.title };
}

/**
 * The badge while a call reports progress: the percentage when the server
 * gives a total (else the running mark), and the progress line as its title.
 */
export function progressBadge(capability, p) {
  const pct = progressPercent(p);
  return { ...BADGES.running, text: pct === null ? BADGES.running.text : `${pct}%`, title: `Gnosis: ${progressText(capability, p)}` };
}
