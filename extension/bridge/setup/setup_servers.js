// Step 2 of the setup page: the host's MCP servers. Each server shows its
// live state, its tools and, when it fails, its reason and its own stderr;
// Edit and Remove change it through the host (providers.set and
// providers.remove: validated and written atomically by the host, applied
// at once). The Munim shortcut asks only for the program's path, and the
// host's providers.check says at the field whether it exists and answers as
// an MCP server; the form does the same for any server, and a check can be
// cancelled. The rules live in ../core/setup_rules.js.
import { BRIDGE } from '../../shared/core/messages.js';
import { CODES } from '../../shared/core/codes.js';
import { shownState } from '../../shared/core/host_view.js';
import { MUNIM, checkNote, fieldError, formFromProvider, munimParams, providerParams, suggestName } from '../core/setup_rules.js';
import { $, breakable, h, send } from '../../shared/page.js';
import { pollWhileVisible } from '../../shared/core/poll.js';

const FORM_FIELDS = ['name', 'command', 'args', 'env', 'prefix', 'timeout', 'startTimeout'];

/** Example paths, true for this system. */
const EXAMPLES = {
  win: { munim: 'C:\\Tools\\Munim\\munim.exe', command: 'C:\\Program Files\\nodejs\\node.exe', intro: "Give the path of munim.exe; Gnosis checks that it starts and lists its tools." },
  other: { munim: '/opt/munim/munim', command: '/usr/bin/node', intro: "Give the path of Munim's program; Gnosis checks that it starts and lists its tools." },
};

const state = {
  list: [], shown: '', onState: () => {}, editing: null, munimChecked: '',
};

/** The state chip of one server. */
const STATE_CHIP = { ready: 'connected', starting: 'degraded', down: 'down', 'not running': 'degraded' };

/** A command line as people read it: arguments with spaces quoted. */
function commandLine(p) {
  return [p.command, ...(p.args || [])].map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ');
}

function serverItem(p) {
  const tools = p.tools || [];
  const item = h('li', { class: 'server card', 'data-name': p.name, 'data-state': p.state },
    h('div', { class: 'server-head' },
      h('strong', { class: 'server-name', text: p.name }),
      h('span', { class: 'muted server-prefix', text: `${p.prefix}.*` }),
      h('span', { class: `chip ${STATE_CHIP[p.state] || ''}`.trim(), text: p.state })),
    h('p', { class: 'server-program', text: commandLine(p) }),
    p.envNames?.length ? h('p', { class: 'muted small', text: `Environment: ${p.envNames.join(', ')} (values hidden)` }) : null,
    p.managedBy ? h('p', { class: 'muted small', text: `Set by the ${p.managedBy} variable of the host's environment: change it there.` }) : null,
    p.error ? h('p', { class: 'server-error', text: p.error }) : null,
    p.stderr ? h('pre', { class: 'pre', 'aria-label': `What ${p.name} wrote on stderr`, text: p.stderr }) : null,
    tools.length ? h('details', { class: 'tools' }, h('summary', { text: `${tools.length} tool${tools.length === 1 ? '' : 's'}` }),
      h('ul', {}, ...tools.map((t) => h('li', {}, ...breakable(t))))) : null);
  if (!p.managedBy) {
    const edit = h('button', { type: 'button', class: 'small', text: 'Edit', 'aria-label': `Edit ${p.name}` });
    const remove = h('button', { type: 'button', class: 'small quiet', text: 'Remove', 'aria-label': `Remove ${p.name}` });
    const confirm = h('div', { class: 'confirm', role: 'alertdialog', hidden: true },
      h('span', { text: `Remove ${p.name}? Its tools stop now; what sites may run stays as you set it.` }),
      h('button', { type: 'button', class: 'danger small', text: 'Remove', 'aria-label': `Yes, remove ${p.name}` }),
      h('button', { type: 'button', class: 'small', text: 'Keep' }));
    const [, yes, keep] = confirm.children;
    edit.addEventListener('click', () => openForm(p));
    remove.addEventListener('click', () => { confirm.hidden = false; yes.focus(); });
    keep.addEventListener('click', () => { confirm.hidden = true; });
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      const r = await send(BRIDGE.REMOVE_PROVIDER, { name: p.name });
      if (!r.ok) $('servers-state').textContent = `Could not remove ${p.name}: ${r.error}`;
      await refresh();
    });
    item.append(h('div', { class: 'row server-actions' }, edit, remove), confirm);
  }
  return item;
}

function render(reply) {
  const list = (reply.providers || []).map((p) => ({ ...p, state: shownState(p) }));
  // A server added since: what the Munim shortcut said about its last check is old news.
  if (state.shown && list.some((p) => !state.list.some((q) => q.name === p.name))) clearMunimCheck();
  state.list = list;
  const key = JSON.stringify(list);
  if (key !== state.shown) {
    state.shown = key;
    $('servers').replaceChildren(...list.map(serverItem));
  }
  $('servers-state').textContent = reply.problem && list.length ? `The configuration file has a problem: ${reply.problem}` : '';
  renderMunim(list.find((p) => p.name === MUNIM) || null);
  const ready = list.some((p) => p.state === 'ready');
  const down = list.find((p) => p.state === 'down');
  const starting = list.some((p) => p.state === 'starting');
  const chip = $('server-chip');
  if (ready) Object.assign(chip, { textContent: 'Ready', className: 'chip connected' });
  else if (starting) Object.assign(chip, { textContent: 'Starting…', className: 'chip degraded' });
  else if (down) Object.assign(chip, { textContent: `${down.name} down`, className: 'chip down' });
  else Object.assign(chip, { textContent: list.length ? 'Not running' : 'No server yet', className: 'chip degraded' });
  chip.dataset.kind = ready ? 'connected' : down ? 'down' : 'degraded';
  state.onState({ ready, problem: !!down });
}

/** Clears the Munim shortcut's word on a failed or cancelled check (the path typed stays). */
function clearMunimCheck() {
  if (['bad', 'warn'].includes($('munim-note').dataset.tone)) setNote('munim', 'ok', '');
}

/** The Munim shortcut is for adding Munim; once it is there, its card's Edit changes it. */
function renderMunim(existing) {
  $('munim').hidden = !!existing;
  if (existing) setNote('munim', 'ok', '');
}

async function refresh() {
  const r = await send(BRIDGE.PROVIDERS);
  if (!r.ok) {
    $('servers-state').textContent = `The host could not list its MCP servers: ${r.error}`;
    return;
  }
  render(r);
}

/** Shows a check's or a save's word at a field: tone ok, warn, bad or busy. */
function setNote(prefix, tone, text, fix = '', stderr = '') {
  const note = $(`${prefix}-note`);
  note.textContent = text;
  note.dataset.tone = tone;
  $(`${prefix}-fix`).textContent = fix;
  $(`${prefix}-fix`).hidden = !fix;
  $(`${prefix}-stderr`).textContent = stderr;
  $(`${prefix}-stderr`).hidden = !stderr;
}

/**
 * Runs providers.check for params and shows what it found at the field;
 * cancel is the button that cancels it while it runs.
 * @returns {Promise<boolean>} whether the program answered as an MCP server
 */
async function check(prefix, params, cancel) {
  const token = crypto.randomUUID();
  setNote(prefix, 'busy', `Checking: starting ${params.command} the way the host will…`);
  cancel.hidden = false;
  const onCancel = () => send(BRIDGE.CANCEL_CHECK, { token });
  cancel.addEventListener('click', onCancel, { once: true });
  try {
    const r = await send(BRIDGE.CHECK_PROVIDER, { token, provider: params });
    if (!r.ok) {
      if (r.code === CODES.CANCELLED) setNote(prefix, 'warn', 'Check cancelled.');
      else setNote(prefix, 'bad', fieldError(r).text);
      return false;
    }
    const n = checkNote(r);
    setNote(prefix, n.tone, n.text, n.fix, n.stderr);
    return n.usable;
  } finally {
    cancel.hidden = true;
    cancel.removeEventListener('click', onCancel);
  }
}

async function checkMunim() {
  const path = $('munim-path').value.trim();
  $('munim-save').disabled = true;
  if (!path) {
    setNote('munim', 'bad', "Give the path of Munim's program.");
    return;
  }
  const existing = state.list.find((p) => p.name === MUNIM) || null;
  const ok = await check('munim', munimParams(path, existing), $('munim-cancel'));
  state.munimChecked = ok ? path : '';
  $('munim-save').disabled = !ok || $('munim-path').value.trim() !== path;
}

async function saveMunim() {
  const path = $('munim-path').value.trim();
  if (state.munimChecked !== path) return checkMunim();
  $('munim-save').disabled = true;
  const existing = state.list.find((p) => p.name === MUNIM) || null;
  const r = await send(BRIDGE.SET_PROVIDER, { provider: munimParams(path, existing) });
  if (!r.ok) {
    setNote('munim', 'bad', fieldError(r).text);
    return;
  }
  setNote('munim', 'ok', 'Added: Munim is starting.');
  await refresh();
}

// ---- the form for any server ------------------------------------------------

function formValues() {
  return Object.fromEntries(FORM_FIELDS.map((f) => [f, $(`server-${f}`).value]));
}

function showErrors(errors, formError = '') {
  for (const f of FORM_FIELDS) {
    $(`server-${f}-error`).textContent = errors[f] || '';
    $(`server-${f}`).setAttribute('aria-invalid', String(!!errors[f]));
  }
  $('server-form-error').textContent = formError;
  const first = FORM_FIELDS.find((f) => errors[f]);
  if (first) {
    if (['timeout', 'startTimeout'].includes(first)) $('server-form').querySelector('details').open = true;
    $(`server-${first}`).focus();
  }
}

function openForm(p = null) {
  state.editing = p;
  const values = p ? formFromProvider(p) : { name: '', command: '', args: '', env: '', prefix: '', timeout: '', startTimeout: '' };
  for (const f of FORM_FIELDS) $(`server-${f}`).value = values[f];
  $('server-name').readOnly = !!p;
  $('server-form-title').textContent = p ? `Edit ${p.name}` : 'Add an MCP server';
  $('server-form').querySelector('details').open = !!(values.timeout && values.timeout !== '120') || !!(values.startTimeout && values.startTimeout !== '30');
  showErrors({});
  setNote('server-command', 'ok', '');
  $('server-form').hidden = false;
  $('server-add').hidden = true;
  $(p ? 'server-command' : 'server-name').focus();
}

function closeForm() {
  $('server-form').hidden = true;
  $('server-add').hidden = false;
  state.editing = null;
}

async function checkForm() {
  const { params, errors } = providerParams(formValues());
  if (errors.command) return showErrors({ command: errors.command });
  delete params.name;
  if (state.editing) params.name = state.editing.name; // a name alone in env takes this server's saved value
  await check('server-command', params, $('server-check-cancel'));
}

async function saveForm(ev) {
  ev.preventDefault();
  const { params, errors } = providerParams(formValues());
  if (Object.keys(errors).length) return showErrors(errors);
  showErrors({});
  $('server-save').disabled = true;
  try {
    const r = await send(BRIDGE.SET_PROVIDER, { provider: params });
    if (!r.ok) {
      const e = fieldError(r);
      return e.field ? showErrors({ [e.field]: e.text }) : showErrors({}, e.text);
    }
    closeForm();
    await refresh();
  } finally {
    $('server-save').disabled = false;
  }
}

/**
 * Wires step 2.
 * @param {{os: string, onState: (s: {ready: boolean, problem: boolean}) => void}} opts
 */
export function initServers({ os, onState }) {
  state.onState = onState;
  const ex = os === 'win' ? EXAMPLES.win : EXAMPLES.other;
  $('munim-path').placeholder = ex.munim;
  $('munim-intro').textContent = ex.intro;
  $('server-command').placeholder = ex.command;
  $('munim-path').addEventListener('input', () => { $('munim-save').disabled = true; setNote('munim', 'ok', ''); });
  $('munim-path').addEventListener('change', checkMunim);
  $('munim-check').addEventListener('click', checkMunim);
  $('munim-save').addEventListener('click', saveMunim);
  $('server-add').addEventListener('click', () => openForm());
  $('server-cancel').addEventListener('click', closeForm);
  $('server-check').addEventListener('click', checkForm);
  $('server-form').addEventListener('submit', saveForm);
  $('server-command').addEventListener('change', () => {
    if (!state.editing && !$('server-name').value.trim()) $('server-name').value = suggestName($('server-command').value, state.list.map((p) => p.name));
  });
}

/** Starts (or stops) following the host's servers: their states change as they start and fail. */
export const setServersEnabled = pollWhileVisible(refresh, 1500, { enabled: false });
