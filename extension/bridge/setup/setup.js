// The setup page, opened when the extension is installed (and after an
// update that changed the host's protocol): three steps a person takes
// without a terminal. 1, the host: the shared host-status component
// (shared/host_card.js) detects it live, downloads the right package for
// this system and waits until it answers, or says exactly how to update the
// older side. 2, the MCP server: setup_servers.js adds, edits and removes the
// host's providers, with a Munim shortcut. 3, a chat site: setup_sites.js
// opens one and links to the options page that arms it. A step opens when
// the one before it is done; the stepper at the top shows where the person is.
import { mountHostCard } from '../../shared/host_card.js';
import { initServers, setServersEnabled } from './setup_servers.js';
import { initSites, setSitesEnabled } from './setup_sites.js';
import { $ } from '../../shared/page.js';

/** Each step's state: 'todo', 'current', 'done' or 'problem'. */
const steps = { host: 'todo', server: 'todo', site: 'todo' };

function mark(step, state) {
  steps[step] = state;
  const el = $(`progress-${step}`);
  el.dataset.state = state;
  el.querySelector('a').setAttribute('aria-label', `${el.textContent.trim()}: ${{ done: 'done', current: 'to do now', problem: 'needs a look', todo: 'not yet' }[state]}`);
  $(`step-${step}`).dataset.state = state;
}

/** Opens or locks a step's body. */
function unlock(step, open) {
  $(`${step}-locked`).hidden = open;
  $(`${step}-body`).hidden = !open;
}

function lockedChip(id, text) {
  const chip = $(id);
  chip.textContent = text;
  chip.className = 'chip';
  chip.dataset.kind = 'locked';
}

let hostOk = false;
let serverOk = false;

function sync() {
  unlock('server', hostOk);
  setServersEnabled(hostOk);
  if (!hostOk) {
    lockedChip('server-chip', 'Waiting for step 1');
    mark('server', 'todo');
  }
  const siteOpen = hostOk && serverOk;
  unlock('site', siteOpen);
  setSitesEnabled(siteOpen);
  if (!siteOpen) {
    lockedChip('site-chip', 'Waiting for step 2');
    mark('site', 'todo');
  }
}

async function main() {
  if (new URLSearchParams(location.search).get('updated')) $('updated').hidden = false;
  const { os } = await chrome.runtime.getPlatformInfo();
  initServers({
    os,
    onState(s) {
      serverOk = s.ready;
      if (hostOk) mark('server', s.ready ? 'done' : s.problem ? 'problem' : 'current');
      sync();
    },
  });
  initSites({
    onState(s) {
      if (hostOk && serverOk) mark('site', s.armed ? 'done' : 'current');
    },
  });
  const card = mountHostCard($('host-card'), {
    page: 'setup', chip: $('host-chip'),
    onView(v) {
      const was = hostOk;
      hostOk = v.connected;
      mark('host', v.connected ? 'done' : v.kind === 'checking' ? 'current' : 'problem');
      if (was !== hostOk) sync();
    },
  });
  sync();
  await card.refresh(true);
  document.body.dataset.ready = 'true';
}

main();
