// The options page of the chat bridge: per-origin settings (filled in from a
// preset on the major chat sites), what the site may run (its grants in the
// host's policy), Start/Stop, Pick, a live selector check, host status and
// one-click install, and the capability prompt.
// Everything persistent goes through the worker (bridge/worker.js); this page
// only calls chrome.tabs (to know the current page) and chrome.permissions
// (requested from the click that needs it).
import { eligibleOrigin, permissionPattern, pickTab } from './selector.js';
import { features } from '../shared/browser.js';
import { DECISIONS, DECISION_LABELS, badgesFor, initialChoices, setAll, summarize, titleOf } from './grants.js';
import { hostView, progressText, providerLine } from '../shared/ui.js';
import { PRESET_MISMATCH, editedFromPreset, presetById, presetSettings } from './presets.js';

const $ = (id) => document.getElementById(id);
const FIELDS = ['source', 'destination', 'autoSend', 'sendButton', 'streaming', 'promptOnStart', 'debounceMs', 'maxConsecutive', 'maxChars'];
const SELECTOR_FIELDS = ['source', 'destination', 'sendButton', 'streaming'];

const state = {
  origin: null, // the origin being edited
  tab: null, // an open tab of that origin, if any
  granted: false, // optional host permission for origin
  armed: false,
  prompt: '',
  grants: null, // {origin, capabilities, choices, configured} once the host answered
  preset: '', // the id of the preset the settings came from
};

function send(type, extra = {}) {
  return chrome.runtime.sendMessage({ type, ...extra });
}

function show(el, visible) {
  el.hidden = !visible;
}

function setError(text) {
  $('form-error').textContent = text || '';
  show($('form-error'), !!text);
}

// ---- host ------------------------------------------------------------------

let installPoll = 0;
let hostConnected = false;
let startBlocked = 'Checking whether the host answers…';

/**
 * Shows the host's state. refresh asks the host now; without it the page
 * reads the worker's copy, which follows the host's provider.state and
 * capabilities.changed events, so a provider that finished starting shows
 * as ready without a click.
 */
async function refreshHost(refresh = true) {
  let r = await send('bridge.hostStatus', { refresh });
  if (!refresh && !r.health && !r.error) r = await send('bridge.hostStatus', { refresh: true });
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
  hostConnected = v.connected;
  startBlocked = v.startBlocked;
  syncStartStop();
  if (v.connected && installPoll) {
    clearInterval(installPoll);
    installPoll = 0;
    $('install-state').textContent = 'The host answers. Installed.';
  }
  return v.connected;
}

/** Start needs the host and a stopped page; Stop needs an armed one. Disabled Start says why. */
function syncStartStop() {
  const eligible = !!state.origin;
  $('start').disabled = !eligible || !hostConnected || state.armed;
  $('stop').disabled = !eligible || !state.armed;
  const why = eligible && !hostConnected && !state.armed ? startBlocked : '';
  $('start-blocked').textContent = why;
  show($('start-blocked'), !!why);
  $('start').title = why;
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
  const target = await send('bridge.installTarget');
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

// ---- the page being configured -------------------------------------------

async function findTarget() {
  const params = new URLSearchParams(location.search);
  const wanted = params.get('origin');
  const tabs = await chrome.tabs.query({});
  const tab = pickTab(tabs, wanted || undefined);
  if (wanted) return { origin: eligibleOrigin(wanted) ? new URL(wanted).origin : null, raw: wanted, tab };
  const lastNormal = [...tabs].filter((t) => !t.url?.startsWith(location.origin))
    .sort((a, b) => (b.lastAccessed || 0) - (a.lastAccessed || 0))[0];
  if (!tab && lastNormal) return { origin: null, raw: lastNormal.url, tab: null };
  return { origin: tab ? eligibleOrigin(tab.url) : null, raw: tab?.url, tab };
}

async function loadOrigin(origin, tab) {
  state.origin = origin;
  state.tab = tab || null;
  $('current-origin').textContent = origin || '—';
  const eligible = !!origin;
  for (const el of document.querySelectorAll('#settings input, #settings button')) el.disabled = !eligible;
  clearGrants(eligible ? 'Asking the host what this site may run…' : '');
  if (!eligible) return;
  state.granted = await chrome.permissions.contains({ origins: [permissionPattern(origin, { portless: features().firefox })] });
  const r = await send('bridge.getSite', { origin });
  if (!r.ok) {
    setError(r.error);
    return;
  }
  fillForm(r.settings);
  state.preset = r.settings.preset || '';
  showPreset();
  await applyPreset(origin, r.settings);
  setArmed(r.armed);
  showLast(r.last);
  for (const b of document.querySelectorAll('.pick')) b.disabled = !state.tab;
  checkSelectors();
  await loadGrants(origin);
}

function fillForm(settings) {
  for (const f of FIELDS) {
    const el = $(f);
    if (el.type === 'checkbox') el.checked = !!settings[f];
    else el.value = settings[f] ?? '';
  }
}

// ---- presets ------------------------------------------------------------------

/** A page with no selectors of its own gets its preset's, when one fits (by origin or by structure). */
async function applyPreset(origin, settings) {
  if (settings.source || settings.destination) return;
  const r = await send('bridge.detectPreset', { origin, tabId: state.tab?.id ?? null }).catch(() => null);
  if (state.origin !== origin || !r?.ok || !r.preset) return;
  fillForm({ ...settings, ...presetSettings(r.preset) });
  state.preset = r.preset.id;
  showPreset();
  await save();
}

/** The preset line: which preset, edited or not, or that it no longer matches the page. */
function showPreset(mismatch = false) {
  const preset = presetById(state.preset);
  const el = $('preset-state');
  el.className = preset && mismatch ? 'preset error' : 'preset muted';
  if (!preset) el.textContent = '';
  else if (mismatch) el.textContent = `${preset.name}: ${PRESET_MISMATCH}`;
  else el.textContent = `preset: ${preset.name}${editedFromPreset(readForm(), preset) ? ' (edited)' : ''}`;
  show(el, !!preset);
}

// ---- what the site may run ---------------------------------------------------

let grantsLoading = false;

async function loadGrants(origin) {
  grantsLoading = true;
  try {
    await readGrants(origin);
  } finally {
    grantsLoading = false;
  }
}

async function readGrants(origin) {
  const r = await send('bridge.getGrants', { origin });
  if (state.origin !== origin) return;
  if (!r.ok) {
    grantsNote(`Could not read what this site may run: ${r.error}`, 'error');
    return;
  }
  state.grants = { origin, capabilities: r.capabilities, choices: initialChoices(r.capabilities, r), configured: r.configured };
  renderGrants();
  grantsNote(r.configured ? `Saved in the host for ${origin}.` : 'Suggested choices, not saved yet: Start saves them.');
}

/** Empties the grants section (another origin, or none). */
function clearGrants(note = '') {
  state.grants = null;
  $('grants-list').replaceChildren();
  $('grants-summary').textContent = '';
  grantsNote(note);
}

function renderGrants() {
  const g = state.grants;
  $('grants-list').replaceChildren(...g.capabilities.map((c, i) => {
    const li = document.createElement('li');
    li.className = 'grant';
    li.dataset.name = c.name;
    const info = document.createElement('div');
    info.className = 'grant-info';
    const title = document.createElement('span');
    title.className = 'grant-title';
    title.textContent = titleOf(c);
    info.append(title);
    if (titleOf(c) !== c.name) {
      const name = document.createElement('code');
      name.textContent = c.name;
      info.append(' ', name);
    }
    const badges = document.createElement('ul');
    badges.className = 'badges';
    badges.append(...badgesFor(c.annotations).map((b) => {
      const item = document.createElement('li');
      item.className = `badge ${b.key}`;
      item.textContent = b.label;
      item.title = b.hint;
      return item;
    }));
    info.append(badges);
    if (c.description) {
      const desc = document.createElement('p');
      desc.className = 'grant-desc';
      desc.textContent = c.description;
      info.append(desc);
    }
    const group = document.createElement('div');
    group.className = 'segmented';
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', titleOf(c) === c.name ? c.name : `${titleOf(c)} (${c.name})`);
    for (const d of DECISIONS) {
      const label = document.createElement('label');
      label.className = d;
      const input = document.createElement('input');
      input.type = 'radio';
      input.name = `grant-${i}`;
      input.value = d;
      input.checked = g.choices[c.name] === d;
      input.addEventListener('change', () => choose({ [c.name]: d }));
      const text = document.createElement('span');
      text.textContent = DECISION_LABELS[d];
      label.append(input, text);
      group.append(label);
    }
    li.append(info, group);
    return li;
  }));
  if (!g.capabilities.length) $('grants-list').append(Object.assign(document.createElement('li'), { className: 'muted', textContent: 'The host reports no capabilities yet.' }));
  showChoices();
}

/** Reflects state.grants.choices in the radios and the summary. */
function showChoices() {
  const g = state.grants;
  for (const li of $('grants-list').querySelectorAll('li.grant')) {
    for (const input of li.querySelectorAll('input[type=radio]')) input.checked = g.choices[li.dataset.name] === input.value;
  }
  $('grants-summary').textContent = summarize(g.choices);
}

function grantsNote(text, kind = '') {
  $('grants-state').textContent = text;
  $('grants-state').className = kind || 'muted';
}

/** Applies changed choices; while armed they are saved at once, otherwise Start saves them. */
async function choose(changes) {
  const g = state.grants;
  if (!g) return;
  Object.assign(g.choices, changes);
  showChoices();
  if (!state.armed) {
    grantsNote('Changed, not saved yet: Start saves these choices.');
    return;
  }
  grantsNote('Saving…');
  const r = await send('bridge.setGrants', { origin: g.origin, grants: { ...g.choices } });
  if (state.grants !== g) return;
  if (r.ok) {
    g.configured = true;
    grantsNote(`Saved in the host for ${g.origin}.`);
  } else {
    grantsNote(`Could not save: ${r.error}`, 'error');
  }
}

function setArmed(armed) {
  state.armed = armed;
  $('armed-state').textContent = armed ? 'Armed: watching this page' : 'Stopped';
  $('armed-state').dataset.armed = String(!!armed);
  syncStartStop();
}

function showLast(last) {
  if (!last) {
    $('last-event').textContent = '';
    return;
  }
  const when = new Date(last.at).toLocaleTimeString();
  const what = {
    armed: 'armed',
    stopped: last.error ? `stopped — ${last.error}` : 'stopped',
    executed: `ran ${last.capability}: ${last.ok ? 'ok' : last.code}`,
    delivered: `result delivered (${last.stage})`,
    failed: last.stage === 'preset' ? last.error : `failed at ${last.stage}: ${last.error}`,
    approval: `waiting for your approval: ${last.capability}`,
    progress: progressText(last.capability, last),
  }[last.kind] || last.kind;
  $('last-event').textContent = `Last: ${what} at ${when}`;
  if (last.kind === 'failed' || (last.kind === 'stopped' && last.error)) setError(what);
}

function readForm() {
  const out = {};
  for (const f of FIELDS) {
    const el = $(f);
    out[f] = el.type === 'checkbox' ? el.checked : el.value;
  }
  out.preset = state.preset;
  return out;
}

async function save() {
  const r = await send('bridge.saveSite', { origin: state.origin, settings: readForm() });
  if (!r.ok) {
    setError(Object.entries(r.errors || {}).map(([k, v]) => `${labelOf(k)}: ${v}`).join('; ') || r.error);
    return false;
  }
  setError('');
  refreshSaved();
  return true;
}

function labelOf(field) {
  return document.querySelector(`label[for="${field}"]`)?.textContent || field;
}

/** Asks for access to the origin, from the click that needs it (contains first). */
function ensureAccess() {
  if (state.granted) return Promise.resolve(true);
  return chrome.permissions.request({ origins: [permissionPattern(state.origin, { portless: features().firefox })] }).then((ok) => {
    state.granted = ok;
    return ok;
  }, () => false);
}

async function refreshSaved() {
  const r = await send('bridge.listSites');
  const select = $('saved-pages');
  const current = select.value;
  select.replaceChildren(new Option('(current page)', ''), ...r.origins.map((o) => new Option(o, o)));
  select.value = r.origins.includes(current) ? current : '';
}

// ---- live selector check ---------------------------------------------------

let checking = false;
async function checkSelectors() {
  if (checking || !state.origin || !state.tab || !state.granted) {
    for (const f of SELECTOR_FIELDS) {
      $(`${f}-match`).textContent = state.origin && !state.tab ? 'open this page in a tab to check' : '';
    }
    return;
  }
  checking = true;
  try {
    const selectors = Object.fromEntries(SELECTOR_FIELDS.map((f) => [f, $(f).value]));
    const r = await send('bridge.check', { tabId: state.tab.id, origin: state.origin, selectors });
    for (const f of Object.keys(selectors)) {
      const el = $(`${f}-match`);
      const res = r.results?.[f];
      el.classList.remove('ok', 'bad');
      if (!selectors[f]) el.textContent = '';
      else if (!r.ok) el.textContent = r.error || '';
      else if (!r.css?.[f] || res?.error) {
        el.textContent = '✗ not a valid selector';
        el.classList.add('bad');
      } else if (!res?.count && f === 'streaming') {
        el.textContent = `no reply streaming now (${r.css[f]})`;
      } else if (!res?.count && f === 'source') {
        el.textContent = `no message on the page yet (${r.css[f]})`;
      } else if (!res?.count && f === 'sendButton') {
        el.textContent = `not on the page now; some sites show it only once there is text (${r.css[f]})`;
      } else if (!res?.count) {
        el.textContent = `✗ matches nothing on the page (${r.css[f]})`;
        el.classList.add('bad');
      } else if (f === 'destination' && !res.editable) {
        el.textContent = `✗ matches ${res.count}, but nothing editable inside`;
        el.classList.add('bad');
      } else {
        el.textContent = `✓ matches ${res.count} element${res.count === 1 ? '' : 's'} (${r.css[f]})`;
        el.classList.add('ok');
      }
    }
    // A preset whose input is gone from the page: the site changed.
    if (r.ok && state.preset) showPreset(!!selectors.destination && !r.results?.destination?.editable);
  } catch {
    // the tab navigated or closed; the next tick tries again
  } finally {
    checking = false;
  }
}

// ---- wiring -----------------------------------------------------------------

async function main() {
  $('host-recheck').addEventListener('click', () => refreshHost(true));
  $('host-install').addEventListener('click', installHost);

  $('start').addEventListener('click', () => {
    setError('');
    ensureAccess().then(async (ok) => {
      if (!ok) {
        setError(`Gnosis needs access to ${state.origin} to read and write the chat. Start again and allow it.`);
        return;
      }
      if (!(await save())) return;
      const g = state.grants?.origin === state.origin ? state.grants : null;
      const r = await send('bridge.start', { origin: state.origin, tabId: state.tab?.id, ...(g ? { grants: { ...g.choices } } : {}) });
      if (!r.ok) {
        setError(r.error || Object.entries(r.errors || {}).map(([k, v]) => `${labelOf(k)}: ${v}`).join('; '));
        return;
      }
      if (g) {
        g.configured = true;
        grantsNote(`Saved in the host for ${g.origin}.`);
      }
      setArmed(true);
      if (r.prompted) $('prompt-state').textContent = 'Inserted into the page.';
      else if (r.promptError) $('prompt-state').textContent = `Could not insert: ${r.promptError}`;
      if (r.failures?.length) setError(`Armed, but some tabs could not be watched: ${r.failures.join('; ')}`);
      checkSelectors();
    });
  });
  $('grants-ask-all').addEventListener('click', () => state.grants && choose(setAll(state.grants.choices, 'ask')));
  $('grants-block-all').addEventListener('click', () => state.grants && choose(setAll(state.grants.choices, 'deny')));
  $('grants-suggested').addEventListener('click', () => state.grants && choose(initialChoices(state.grants.capabilities, { configured: false })));
  $('stop').addEventListener('click', async () => {
    const r = await send('bridge.stop', { origin: state.origin });
    if (r.ok) setArmed(false);
  });

  for (const button of document.querySelectorAll('.pick')) {
    button.addEventListener('click', () => {
      const field = button.dataset.field;
      ensureAccess().then(async (ok) => {
        if (!ok || !state.tab) return;
        $(`${field}-match`).textContent = 'Click the element in the page (Escape cancels)…';
        const r = await send('bridge.pick', { tabId: state.tab.id, origin: state.origin, field });
        if (r?.ok && r.selector) {
          $(field).value = r.selector;
          await save();
        }
        checkSelectors();
      });
    });
  }

  for (const f of FIELDS) $(f).addEventListener('change', () => state.origin && save());
  for (const f of SELECTOR_FIELDS) $(f).addEventListener('input', () => checkSelectors());

  $('saved-pages').addEventListener('change', async () => {
    const origin = $('saved-pages').value;
    if (origin) {
      const tabs = await chrome.tabs.query({});
      await loadOrigin(origin, pickTab(tabs, origin));
    } else {
      await loadTarget();
    }
  });

  $('prompt-show').addEventListener('click', async () => {
    const text = await getPrompt();
    if (text) {
      $('prompt-text').value = text;
      show($('prompt-text'), true);
    }
  });
  $('prompt-copy').addEventListener('click', async () => {
    const text = await getPrompt();
    if (!text) return;
    await navigator.clipboard.writeText(text).then(() => {
      $('prompt-state').textContent = 'Copied.';
    }, () => {
      $('prompt-text').value = text;
      show($('prompt-text'), true);
      $('prompt-text').select();
      $('prompt-state').textContent = 'Copy was refused: the prompt is selected below.';
    });
  });
  $('prompt-insert').addEventListener('click', () => {
    ensureAccess().then(async (ok) => {
      if (!ok || !state.tab) {
        $('prompt-state').textContent = 'Open the chat page in a tab first.';
        return;
      }
      const r = await send('bridge.insertPrompt', { tabId: state.tab.id, origin: state.origin });
      $('prompt-state').textContent = r?.ok ? 'Inserted into the page.' : `Could not insert: ${r?.error}`;
    });
  });

  await loadTarget();
  document.body.dataset.ready = 'true'; // settings loaded: typing now is not overwritten
  refreshSaved();
  refreshHost(true);
  setInterval(() => refreshHost(false).catch(() => {}), 1000);
  setInterval(checkSelectors, 1500);
  setInterval(async () => {
    if (!state.origin) return;
    const r = await send('bridge.getSite', { origin: state.origin });
    if (r.ok) {
      setArmed(r.armed);
      showLast(r.last);
    }
    // A provider still starting lists no capabilities yet: ask again until it does.
    if (!grantsLoading && !state.grants?.capabilities.length && state.origin) await loadGrants(state.origin);
  }, 1000);
}

async function getPrompt() {
  $('prompt-state').textContent = 'Asking the host…';
  const r = await send('bridge.capabilityPrompt', { origin: state.origin });
  if (!r.ok) {
    $('prompt-state').textContent = `Could not build the prompt: ${r.error}`;
    return '';
  }
  $('prompt-state').textContent = `${r.count} capabilities.`;
  return r.text;
}

async function loadTarget() {
  const target = await findTarget();
  const eligible = !!target.origin;
  $('eligibility').textContent = eligible ? '' : `${target.raw || 'This page'} is not eligible: only http and https pages can be used.`;
  show($('eligibility'), !eligible);
  await loadOrigin(target.origin, target.tab);
}

main();
