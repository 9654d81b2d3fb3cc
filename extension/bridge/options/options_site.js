// The options page's Page section: which site is being edited (the origin in
// the URL, the current tab, or a saved page), its settings form (filled in
// from a preset on the major chat sites and saved through the worker on each
// change), Pick, the live check of its selectors against the open tab (and of
// how the page takes images: "Attach images by"), and
// the page's access to the site (chrome.permissions, asked from the click
// that needs it).
import { $, send, setError, setText, show, state } from './options_page.js';
import { checkMessage, eligibleOrigin, permissionPattern, pickTab } from '../core/selector.js';
import { features } from '../../shared/browser.js';
import { PRESET_MISMATCH, editedFromPreset, presetById, presetSettings } from '../core/presets.js';
import { clearGrants, loadGrants } from './options_grants.js';
import { setArmed, showLast, showSendState } from './options_status.js';
import { BRIDGE } from '../../shared/core/messages.js';
import { maybeDetect, wireDetect } from './options_detect.js';
import { attachMessage } from '../core/attach_means.js';

const FIELDS = ['source', 'destination', 'autoSend', 'sendButton', 'sendWithEnter', 'streaming', 'promptOnStart', 'debounceMs', 'maxConsecutive', 'maxChars',
  'attachBy', 'attachTarget', 'imageMaxSide', 'maxImages'];
const SELECTOR_FIELDS = ['source', 'destination', 'sendButton', 'streaming'];

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

/** Edits the site the page was opened for (its ?origin=, or the current tab), or says why it cannot. */
export async function loadTarget() {
  const target = await findTarget();
  const eligible = !!target.origin;
  $('eligibility').textContent = eligible ? '' : `${target.raw || 'This page'} is not eligible: only http and https pages can be used.`;
  show($('eligibility'), !eligible);
  await loadOrigin(target.origin, target.tab);
}

async function loadOrigin(origin, tab) {
  state.origin = origin;
  state.tab = tab || null;
  $('current-origin').textContent = origin || '—';
  const eligible = !!origin;
  for (const el of document.querySelectorAll('#settings input, #settings button, #grants input, #grants button, #promptOnStart')) el.disabled = !eligible;
  clearGrants(eligible ? 'Asking the host what this site may run…' : '');
  if (!eligible) return;
  state.granted = await chrome.permissions.contains({ origins: [permissionPattern(origin, { portless: features().firefox })] });
  const r = await send(BRIDGE.GET_SITE, { origin });
  if (!r.ok) {
    setError(r.error);
    return;
  }
  fillForm(r.settings);
  Object.assign(elements, { preset: '', bad: 0 });
  $('elements').open = true;
  state.preset = r.settings.preset || '';
  showPreset();
  await applyPreset(origin, r.settings);
  setArmed(r.armed);
  showLast(r.last);
  for (const b of document.querySelectorAll('.pick')) b.disabled = !state.tab;
  checkSelectors();
  maybeDetect(detectHooks);
  await loadGrants(origin);
}

function fillForm(settings) {
  for (const f of FIELDS) {
    const el = $(f);
    if (el.type === 'checkbox') el.checked = !!settings[f];
    else el.value = settings[f] ?? '';
  }
  state.autoSendChosen = !!settings.autoSendChosen;
  showSendState(settings);
}

// ---- presets ------------------------------------------------------------------

/** A page with no selectors of its own gets its preset's, when one fits (by origin or by structure). */
async function applyPreset(origin, settings) {
  if (settings.source || settings.destination) return;
  const r = await send(BRIDGE.DETECT_PRESET, { origin, tabId: state.tab?.id ?? null }).catch(() => null);
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
  if (!preset) setText(el, '');
  else if (mismatch) setText(el, `${preset.name}: ${PRESET_MISMATCH}`);
  else setText(el, `preset: ${preset.name}${editedFromPreset(readForm(), preset) ? ' (edited)' : ''}`);
  show(el, !!preset);
  // The elements of an unedited preset that fits stay folded; anything else is shown.
  const fits = preset && !mismatch && !editedFromPreset(readForm(), preset);
  elements.preset = fits ? `from the ${preset.name} preset` : '';
  if (fits && !elements.touched) $('elements').open = false;
  if (mismatch) $('elements').open = true;
  showElements();
}

// ---- the Page elements fold -------------------------------------------------

/** What the fold's summary says: the fields to fix, else the preset they come from. */
const elements = {
  preset: '', // "from the Claude preset" while an unedited preset fits
  bad: 0, // fields the live check marks wrong
  touched: false, // the user opened or closed the fold: it stays as they left it
};

function showElements() {
  const note = elements.bad ? `${elements.bad} to fix` : elements.preset;
  setText($('elements-state'), note ? `· ${note}` : '');
  $('elements-state').classList.toggle('bad', elements.bad > 0);
  if (elements.bad) $('elements').open = true;
}

// ---- saving -------------------------------------------------------------------

function readForm() {
  const out = {};
  for (const f of FIELDS) {
    const el = $(f);
    out[f] = el.type === 'checkbox' ? el.checked : el.value;
  }
  out.preset = state.preset;
  out.autoSendChosen = !!state.autoSendChosen;
  return out;
}

/** Saves the form through the worker; false (and the errors shown) when it refused. */
export async function save() {
  const settings = readForm();
  const r = await send(BRIDGE.SAVE_SITE, { origin: state.origin, settings });
  if (!r.ok) {
    setError(fieldErrors(r.errors) || r.error);
    return false;
  }
  setError('');
  // Auto-send follows the send button until the person chooses it (the worker decides); a
  // tick given while this save was on its way stands.
  if (!state.autoSendChosen && $('autoSend').checked === settings.autoSend) $('autoSend').checked = !!r.settings.autoSend;
  showSendState({ ...r.settings, autoSend: $('autoSend').checked });
  refreshSaved();
  return true;
}

/** The worker's per-field errors as one line, each under its field's label. */
export function fieldErrors(errors) {
  return Object.entries(errors || {}).map(([k, v]) => `${labelOf(k)}: ${v}`).join('; ');
}

function labelOf(field) {
  return document.querySelector(`label[for="${field}"]`)?.textContent.trim() || field;
}

/** Asks for access to the origin, from the click that needs it (contains first). */
export function ensureAccess() {
  if (state.granted) return Promise.resolve(true);
  return chrome.permissions.request({ origins: [permissionPattern(state.origin, { portless: features().firefox })] }).then((ok) => {
    state.granted = ok;
    return ok;
  }, () => false);
}

/** Fills the Saved pages list from the worker, keeping the selection when it is still there. */
export async function refreshSaved() {
  const r = await send(BRIDGE.LIST_SITES);
  const select = $('saved-pages');
  const current = select.value;
  select.replaceChildren(new Option('(current page)', ''), ...r.origins.map((o) => new Option(o, o)));
  select.value = r.origins.includes(current) ? current : '';
}

// ---- live selector check ---------------------------------------------------

let checking = false;

/** Checks each selector against the open tab and says what it matches. */
export async function checkSelectors() {
  if (checking || !state.origin || !state.tab || !state.granted) {
    for (const f of SELECTOR_FIELDS) showMatch($(`${f}-match`), state.origin && !state.tab ? 'open this page in a tab to check' : '', '');
    showAttach({ text: state.origin && !state.tab ? 'open this page in a tab to check' : '', kind: '' });
    return;
  }
  checking = true;
  try {
    const selectors = Object.fromEntries(SELECTOR_FIELDS.map((f) => [f, $(f).value]));
    const attach = { attachBy: $('attachBy').value, attachTarget: $('attachTarget').value, preset: state.preset };
    const r = await send(BRIDGE.CHECK, { tabId: state.tab.id, origin: state.origin, selectors, attach });
    showAttach(r.ok ? attachMessage(r.attach) : { text: r.error || '', kind: '' });
    for (const f of Object.keys(selectors)) {
      const el = $(`${f}-match`);
      if (!selectors[f]) showMatch(el, '', '');
      else if (!r.ok) showMatch(el, r.error || '', '');
      else {
        const said = checkMessage(f, r.results?.[f], r.css?.[f]);
        showMatch(el, said.text, said.kind);
      }
    }
    // A preset whose input is gone from the page: the site changed.
    if (r.ok && state.preset) showPreset(!!selectors.destination && !r.results?.destination?.editable);
    elements.bad = SELECTOR_FIELDS.filter((f) => $(`${f}-match`).classList.contains('bad')).length;
    showElements();
  } catch {
    // the tab navigated or closed; the next tick tries again
  } finally {
    checking = false;
  }
}

/** The live check under "Attach images by": the way the page takes images, and why. */
function showAttach({ text, kind }) {
  showMatch($('attachTarget-match'), text, kind);
}

/** A live check's line: its text and its one mark (ok, bad or warn), each written only when it changed. */
function showMatch(el, text, kind) {
  setText(el, text);
  for (const k of ['ok', 'bad', 'warn']) el.classList.toggle(k, k === kind);
}

// ---- wiring -----------------------------------------------------------------

const detectHooks = { ensureAccess, save, check: () => checkSelectors() };

/** Wires Pick, Find them on the page, saving on each change, the live check while typing, and Saved pages. */
export function wireSiteForm() {
  wireDetect(detectHooks);
  for (const button of document.querySelectorAll('.pick')) {
    button.addEventListener('click', () => {
      const field = button.dataset.field;
      ensureAccess().then(async (ok) => {
        if (!ok || !state.tab) return;
        $(`${field}-match`).textContent = 'Click the element in the page (Escape cancels)…';
        const r = await send(BRIDGE.PICK, { tabId: state.tab.id, origin: state.origin, field });
        if (r?.ok && (r.selector || r.by)) {
          $(field).value = r.selector || '';
          // What was picked for images says how: the file input behind an attach button, a drop zone, the input.
          if (r.by) $('attachBy').value = r.by;
          await save();
        }
        checkSelectors();
      });
    });
  }

  $('elements').querySelector('summary').addEventListener('click', () => { elements.touched = true; });
  $('autoSend').addEventListener('change', () => { state.autoSendChosen = true; });
  for (const f of FIELDS) $(f).addEventListener('change', () => state.origin && save());
  for (const f of [...SELECTOR_FIELDS, 'attachTarget']) $(f).addEventListener('input', () => checkSelectors());
  $('attachBy').addEventListener('change', () => checkSelectors());

  $('saved-pages').addEventListener('change', async () => {
    const origin = $('saved-pages').value;
    if (origin) {
      const tabs = await chrome.tabs.query({});
      await loadOrigin(origin, pickTab(tabs, origin));
    } else {
      await loadTarget();
    }
  });
}
