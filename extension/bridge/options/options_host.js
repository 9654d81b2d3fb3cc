// The options page's Host section: the host's state (chip, line, version,
// providers, capabilities, the problem card with its fix), and the one-click
// install that downloads the host and waits for it to answer.
import { $, send, show } from './options_page.js';
import { hostView, providerLine } from '../../shared/core/ui.js';
import { setHostGate } from './options_status.js';
import { BRIDGE } from '../../shared/core/messages.js';

let installPoll = 0;

/**
 * Shows the host's state. refresh asks the host now; without it the page
 * reads the worker's copy, which follows the host's provider.state and
 * capabilities.changed events, so a provider that finished starting shows
 * as ready without a click.
 */
export async function refreshHost(refresh = true) {
  let r = await send(BRIDGE.HOST_STATUS, { refresh });
  if (!refresh && !r.health && !r.error) r = await send(BRIDGE.HOST_STATUS, { refresh: true });
  const v = hostView(r, { extensionId: chrome.runtime.id });
  const h = r.health;
  $('host-chip').textContent = v.chip;
  $('host-chip').className = `chip ${v.kind}`;
  $('host-chip').dataset.kind = v.kind;
  $('host-state').textContent = v.line;
  if (v.connected) {
    $('host-version').textContent = h.version || '?';
    $('host-providers').replaceChildren(...(v.providers.length ? v.providers.map((p) => {
      const item = document.createElement('span');
      item.className = `provider ${p.state}`;
      item.textContent = providerLine(p);
      return item;
    }) : ['none configured']));
    $('host-capabilities').textContent = String(h.capabilities ?? 0);
  }
  show($('host-details'), v.connected);
  const problem = v.problem;
  show($('host-problem'), !!problem);
  if (problem) {
    $('host-problem-title').textContent = problem.title;
    $('host-problem-reason').textContent = problem.reason;
    $('host-stderr').textContent = problem.stderr;
    show($('host-stderr'), !!problem.stderr);
    $('host-fix').textContent = problem.fix;
    $('host-fix-command').textContent = problem.command;
  }
  $('host-advice').textContent = v.advice;
  $('host-advice-command').textContent = v.command;
  show($('host-advice-command'), !!v.command);
  show($('host-advice-box'), !v.connected && !!v.advice);
  show($('host-install'), !v.connected && v.kind !== 'checking');
  setHostGate(v.connected, v.startBlocked);
  if (v.connected && installPoll) {
    clearInterval(installPoll);
    installPoll = 0;
    $('install-state').textContent = 'The host answers. Installed.';
  }
  return v.connected;
}

/** Shows install guidance or progress in the install box. */
function installNote(text, command = '') {
  const box = $('install-state');
  const p = document.createElement('p');
  p.textContent = text;
  box.replaceChildren(p);
  if (command) {
    const code = document.createElement('code');
    code.className = 'command';
    code.textContent = command;
    box.append(code);
  }
  show(box, true);
}

async function installHost() {
  installNote('Downloading the host…');
  const target = await send(BRIDGE.INSTALL_TARGET);
  if (!target.ok) {
    // A source checkout carries no hostbin/: the host is built and registered from the repository.
    if (target.file) installNote('This copy of the extension was loaded from a source checkout, so it carries no host to download. In the repository, run the command below; it builds gnosis-host and registers it with your browsers. Then press Check again.', 'make install');
    else installNote(`There is no ready-made host for this system (${target.error}). Build it from the repository with the command below, then press Check again.`, 'make install');
    return;
  }
  try {
    // The download manager cannot read chrome-extension:// URLs; a blob URL
    // of this page's own copy of the file can be downloaded.
    const blob = await (await fetch(chrome.runtime.getURL(target.path))).blob();
    const url = URL.createObjectURL(blob);
    await chrome.downloads.download({ url, filename: target.file, conflictAction: 'overwrite', saveAs: false });
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (err) {
    installNote(`Could not download the host: ${err.message}`);
    return;
  }
  installNote(`Downloaded ${target.file}. ${target.advice} Waiting for the host to answer…`);
  clearInterval(installPoll);
  installPoll = setInterval(() => refreshHost(true), 2000);
}

/** Wires Check again and Install the host. */
export function wireHost() {
  $('host-recheck').addEventListener('click', () => refreshHost(true));
  $('host-install').addEventListener('click', installHost);
}
