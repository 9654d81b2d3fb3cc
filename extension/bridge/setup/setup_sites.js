// Step 3 of the setup page: a chat site. It opens one of the sites Gnosis
// knows (../core/presets.js) or any page, lists the web pages open now with
// whether each is armed, and links each to the options page for that site,
// where the person chooses what it may run and presses Start.
import { BRIDGE } from '../../shared/core/messages.js';
import { PRESETS, matchPreset } from '../core/presets.js';
import { eligibleOrigin } from '../core/selector.js';
import { $, h, send } from '../../shared/page.js';
import { pollWhileVisible } from '../../shared/core/poll.js';

const state = { shown: '', onState: () => {} };

function open(url) {
  return chrome.tabs.create({ url });
}

/** The web pages open now, one per origin, with whether each is armed. */
async function openSites() {
  const tabs = await chrome.tabs.query({});
  const origins = [...new Set(tabs.map((t) => eligibleOrigin(t.url || '')).filter(Boolean))].sort();
  return Promise.all(origins.map(async (origin) => {
    const r = await send(BRIDGE.GET_SITE, { origin });
    const preset = matchPreset(origin, () => false)?.preset;
    return { origin, armed: !!r.armed, preset: preset?.name || '' };
  }));
}

function siteItem(s) {
  // A site no preset fits: the options page starts by finding its elements on the page.
  const options = `../options/options.html?origin=${encodeURIComponent(s.origin)}${s.armed || s.preset ? '' : '&detect=1'}`;
  return h('li', { class: 'site', 'data-origin': s.origin, 'data-armed': String(s.armed) },
    h('div', { class: 'site-head' },
      h('span', { class: 'site-origin', text: s.origin }),
      h('span', { class: `chip ${s.armed ? 'connected' : ''}`.trim(), text: s.armed ? 'Armed' : 'Not armed' })),
    s.preset ? h('p', { class: 'muted small', text: `Gnosis knows ${s.preset}: its page elements are filled in for you.` }) : null,
    h('a', { class: `btn small ${s.armed ? '' : 'primary'}`.trim(), href: options, target: '_blank', text: s.armed ? 'Options for this site' : 'Arm this site',
      'aria-label': `${s.armed ? 'Options for' : 'Arm'} ${s.origin}` }));
}

async function refresh() {
  const sites = await openSites();
  const key = JSON.stringify(sites);
  if (key !== state.shown) {
    state.shown = key;
    $('sites').replaceChildren(...sites.map(siteItem));
    $('sites-none').hidden = sites.length > 0;
  }
  const armed = sites.some((s) => s.armed);
  const chip = $('site-chip');
  chip.textContent = armed ? 'Armed' : sites.length ? 'Not armed yet' : 'No page open';
  chip.className = `chip ${armed ? 'connected' : 'degraded'}`;
  chip.dataset.kind = armed ? 'connected' : 'degraded';
  state.onState({ armed });
}

/** Wires step 3. */
export function initSites({ onState }) {
  state.onState = onState;
  $('presets').replaceChildren(...PRESETS.map((p) => {
    const b = h('button', { type: 'button', class: 'small', text: p.name, title: p.origins[0] });
    b.addEventListener('click', () => open(p.origins[0]));
    return h('li', {}, b);
  }));
  $('site-open').addEventListener('submit', (ev) => {
    ev.preventDefault();
    let text = $('site-url').value.trim();
    if (text && !/^[a-z][a-z0-9+.-]*:/i.test(text)) text = `https://${text}`;
    const ok = eligibleOrigin(text);
    $('site-url-error').textContent = ok ? '' : 'Give the address of a web page (http or https).';
    $('site-url').setAttribute('aria-invalid', String(!ok));
    if (ok) open(text);
  });
}

/** Starts (or stops) following the open pages and their armed state. */
export const setSitesEnabled = pollWhileVisible(refresh, 1500, { enabled: false });
