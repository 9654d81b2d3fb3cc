// The host-status component the options page's Host section and the setup
// page's first step share: the host's live state (shared/core/host_view.js),
// its version and protocol, its MCP servers with their state, the problem
// card with the server's own stderr and the fix, the advice when the browser
// cannot reach it, the exact update when its protocol does not fit, the
// one-click install from the release download location (then a live wait
// until the host answers), and "Copy diagnostic report". This is its view:
// what it knows and decides is shared/core/host_card_state.js, the words of
// the host's state shared/core/host_view.js. Extension pages only (DOM,
// chrome.runtime, chrome.downloads); everything persistent goes through the
// worker (HOST_CARD messages: bridge/worker/setup_worker.js and host_queries.js).
import { hostView, providerLine } from './core/host_view.js';
import { SOURCE_INSTALL, checkLocation, hostDownloads, installSteps, updatePlan } from './core/host_install.js';
import { downloadFailed, downloadFailure, downloadStarted, initialCard, pollTick, reportSaid, viewSeen, withContext, withLocation } from './core/host_card_state.js';
import { HOST_CARD } from './core/messages.js';
import { features } from './browser.js';
import { h, send } from './page.js';
import { pollWhileVisible } from './core/poll.js';

/**
 * Mounts the component into root.
 * @param {HTMLElement} root
 * @param {object} opts
 * @param {'options'|'setup'} opts.page which page it is on (the fixes it names differ)
 * @param {HTMLElement} [opts.chip] the element that shows the state chip (the section's header)
 * @param {(view: import('./core/host_view.js').HostView) => void} [opts.onView] called on every change
 * @returns {{refresh: (force?: boolean) => Promise<object>, view: () => object}}
 */
export function mountHostCard(root, { page, chip, onView = () => {} }) {
  const ui = build(root, page);
  let ctx = initialCard({
    page, extensionId: chrome.runtime.id, extensionVersion: chrome.runtime.getManifest().version, firefox: features(chrome).firefox,
  });

  async function context() {
    if (ctx.info) return;
    const [info, self, where] = await Promise.all([
      chrome.runtime.getPlatformInfo(), chrome.management?.getSelf?.().catch(() => null), send(HOST_CARD.GET_DOWNLOAD_LOCATION),
    ]);
    ctx = withContext(ctx, { info, installType: self?.installType, location: where.location, isDefault: where.isDefault });
    ui.locationInput.value = where.location;
    ui.locationInput.placeholder = where.defaultLocation;
  }

  let rendered = '';

  async function refresh(force = true) {
    await context();
    const reconnect = force && ctx.view?.kind === 'incompatible';
    let r = await send(HOST_CARD.STATUS, { refresh: force, reconnect });
    if (!force && !r.health && !r.error) r = await send(HOST_CARD.STATUS, { refresh: true });
    const v = hostView(r, { extensionId: ctx.extensionId, extensionVersion: ctx.extensionVersion, os: ctx.info.os, page, firefox: ctx.firefox });
    const seen = viewSeen(ctx, v);
    ctx = seen.state;
    // Each second's answer is mostly the last one: the card is written only when what it shows
    // changed, so an open page does no layout or paint for nothing and its status line, a live
    // region, is not announced again.
    const shown = JSON.stringify([v, r.health?.version, ctx.location, ctx.installType]);
    if (shown !== rendered) {
      render(v, r);
      rendered = shown;
    }
    if (seen.note === 'installed') note('ok', [h('p', { text: 'gnosis-host answers. Installed.' })]);
    else if (seen.note === 'clear') clearNote();
    onView(v);
    return v;
  }

  function render(v, r) {
    if (chip) {
      chip.textContent = v.chip;
      chip.className = `chip ${v.chipClass}`.trim();
      chip.dataset.kind = v.kind;
    }
    ui.state.textContent = v.line;
    ui.state.dataset.code = v.code;
    ui.said.textContent = v.said ? `The browser says: “${v.said}”` : '';
    ui.said.hidden = !v.said;

    ui.details.hidden = !v.answers;
    if (v.answers) {
      ui.version.textContent = v.version;
      // The first server that is down has the problem card; any other says its reason here.
      const inCard = v.problem ? v.providers.find((p) => p.state === 'down') : null;
      ui.providers.replaceChildren(...(v.providers.length
        ? v.providers.map((p) => h('li', { class: `provider ${p.state}` }, providerLine(p),
          p.error && p.state === 'down' && p !== inCard ? h('span', { class: 'provider-error', text: p.error }) : null))
        : [h('li', { class: 'muted', text: 'none yet' })]));
      ui.capabilities.textContent = String(v.capabilities);
    }

    const problem = v.problem;
    ui.problem.hidden = !problem;
    if (problem) {
      ui.problem.className = `card ${problem.tone}`;
      ui.problemTitle.textContent = problem.title;
      ui.problemReason.textContent = problem.reason;
      ui.problemReason.hidden = !problem.reason;
      ui.stderr.textContent = problem.stderr;
      ui.stderr.hidden = !problem.stderr;
      ui.fix.textContent = problem.fix;
      ui.setupLink.hidden = !problem.setupLink;
      ui.fixCommand.textContent = problem.command;
      ui.fixTerminal.hidden = !problem.command;
    }

    ui.advice.textContent = v.advice;
    ui.adviceCommand.textContent = v.command;
    ui.adviceCommand.hidden = !v.command;
    ui.adviceBox.hidden = !(v.kind === 'down' && v.advice);
    // Beside the install button the advice is a footnote; alone it is the card that says what to do.
    ui.adviceBox.className = v.install ? 'host-hint muted small' : 'card warn';

    renderUpdate(v, r);
    renderInstall(v);
  }

  function renderUpdate(v, r) {
    ui.update.hidden = !v.update;
    if (!v.update) return;
    const plan = updatePlan(v.update.older, {
      info: ctx.info, location: ctx.location, extensionVersion: ctx.extensionVersion, hostVersion: r.health?.version || '',
      installType: ctx.installType, firefox: ctx.firefox,
    });
    ui.updateTitle.textContent = v.update.title;
    ui.updateMessage.textContent = v.update.message;
    ui.updateText.textContent = plan.text;
    const key = JSON.stringify([plan.downloads?.packages[0].url, plan.link?.url]);
    if (ui.updateActions.dataset.for !== key) {
      const children = [];
      if (plan.downloads) children.push(...downloadControls(plan.downloads, 'Download the update'));
      if (plan.link) children.push(h('p', {}, h('a', { href: plan.link.url, target: '_blank', rel: 'noopener', text: plan.link.label })));
      ui.updateActions.replaceChildren(...children);
      ui.updateActions.dataset.for = key;
    }
    ui.updateSourceText.textContent = plan.source.text;
    ui.updateSourceCommand.textContent = plan.source.command;
  }

  function renderInstall(v) {
    const show = v.install;
    ui.installBox.hidden = !show;
    if (!show) return;
    const d = hostDownloads(ctx.info, { location: ctx.location, version: ctx.extensionVersion });
    if (!d) {
      ui.installIntro.textContent = `The release has no ready-made gnosis-host for this system (${ctx.info.os}, ${ctx.info.arch}). Build it from a source checkout:`;
      ui.installActions.replaceChildren();
      return;
    }
    ui.installIntro.textContent = `gnosis-host ${ctx.extensionVersion} for ${d.platform}, the release that matches this extension:`;
    if (ui.installActions.dataset.for !== d.packages[0].url) {
      ui.installActions.replaceChildren(...downloadControls(d, 'Install the host'));
      ui.installActions.dataset.for = d.packages[0].url;
    }
  }

  /** The main download button with its file name, the other formats and the checksums as links. */
  function downloadControls(d, label) {
    const [first, ...rest] = d.packages;
    const button = h('button', { type: 'button', class: 'primary', id: label === 'Install the host' ? 'host-install' : 'host-update-download', text: label });
    button.addEventListener('click', () => download(first, label !== 'Install the host'));
    const row = h('div', { class: 'row' }, button, h('span', { class: 'muted file-name', text: first.file }));
    const links = [];
    for (const p of rest) {
      const a = h('a', { href: p.url, text: p.label });
      a.addEventListener('click', (ev) => { ev.preventDefault(); download(p, label !== 'Install the host'); });
      links.push(a, ' · ');
    }
    links.push(h('a', { href: d.checksums, target: '_blank', rel: 'noopener', text: 'SHA256SUMS' }));
    return [row, h('p', { class: 'muted small other-formats' }, rest.length ? 'Other formats: ' : 'Checksums: ', ...links)];
  }

  /** Downloads pkg from the release location, then says what to do with it and waits for the host. */
  async function download(pkg, isUpdate) {
    note('info', [h('p', {}, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ` Downloading ${pkg.file}…`)]);
    let id;
    try {
      id = await chrome.downloads.download({ url: pkg.url, filename: pkg.file, conflictAction: 'uniquify', saveAs: false });
    } catch (err) {
      failed(pkg, err.message);
      return;
    }
    ctx = downloadStarted(ctx, { id, pkg, isUpdate });
    const done = await finished(id);
    if (done.state !== 'complete') {
      failed(pkg, downloadFailure(done.error));
      return;
    }
    const steps = installSteps(pkg, ctx.info, done.filename);
    note('info', [
      h('p', { text: `Downloaded ${pkg.file}. ${steps.text}` }),
      steps.command ? h('p', {}, 'In a terminal: ', h('code', { class: 'command', text: steps.command })) : null,
      h('p', { class: 'waiting' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), ' Waiting for gnosis-host to answer…'),
    ]);
  }

  function failed(pkg, why) {
    ctx = downloadFailed(ctx);
    note('error', [
      h('p', { text: `Could not download ${pkg.file}: ${why}.` }),
      h('p', {}, 'It was fetched from ', h('code', { class: 'command', text: pkg.url }), '. If you use a fork or a mirror, set its address under Download location.'),
    ]);
  }

  /** Resolves with the download's final state: {state, error?, filename?}. */
  function finished(id) {
    return new Promise((resolve) => {
      const check = async () => {
        const [item] = await chrome.downloads.search({ id });
        if (!item || item.state === 'in_progress') return false;
        chrome.downloads.onChanged.removeListener(onChanged);
        resolve({ state: item.state, error: item.error, filename: item.filename });
        return true;
      };
      const onChanged = (delta) => { if (delta.id === id && delta.state) check(); };
      chrome.downloads.onChanged.addListener(onChanged);
      check();
    });
  }

  function note(tone, children) {
    ctx = { ...ctx, noteTone: tone };
    ui.installState.className = `card ${tone}`;
    ui.installState.dataset.tone = tone;
    ui.installState.replaceChildren(...children.filter(Boolean));
    ui.installState.hidden = false;
  }

  function clearNote() {
    ctx = { ...ctx, noteTone: '' };
    ui.installState.hidden = true;
    ui.installState.replaceChildren();
    delete ui.installState.dataset.tone;
  }

  async function saveLocation(value) {
    const error = value.trim() ? checkLocation(value) : '';
    ui.locationError.textContent = error;
    ui.locationInput.setAttribute('aria-invalid', String(!!error));
    if (error) return;
    const r = await send(HOST_CARD.SET_DOWNLOAD_LOCATION, { location: value });
    if (!r.ok) {
      ui.locationError.textContent = r.error;
      ui.locationInput.setAttribute('aria-invalid', 'true');
      return;
    }
    ctx = withLocation(ctx, r);
    ui.locationInput.value = r.location;
    ui.locationSaved.textContent = r.isDefault ? 'The release’s own location.' : 'Saved.';
    await refresh(true);
  }

  async function copyReport() {
    ui.reportState.textContent = 'Collecting the report…';
    ui.report.disabled = true;
    try {
      const r = await send(HOST_CARD.DIAGNOSTIC_REPORT);
      if (!r.ok) {
        ui.reportState.textContent = `Could not build the report: ${r.error}`;
        return;
      }
      ui.reportText.value = r.text;
      ui.reportView.hidden = false;
      let copyError = '';
      try {
        await navigator.clipboard.writeText(r.text);
      } catch (err) {
        copyError = err.message;
        ui.reportView.open = true;
      }
      ui.reportState.textContent = reportSaid({ hostIncluded: r.hostIncluded, copyError });
    } finally {
      ui.report.disabled = false;
    }
  }

  ui.recheck.addEventListener('click', () => refresh(true));
  ui.report.addEventListener('click', copyReport);
  ui.locationForm.addEventListener('submit', (ev) => { ev.preventDefault(); saveLocation(ui.locationInput.value); });
  ui.locationReset.addEventListener('click', () => saveLocation(''));

  // Live: every second, asking the host again when host_card_state.js pollTick says so.
  pollWhileVisible(() => {
    const t = pollTick(ctx);
    ctx = t.state;
    return refresh(t.force);
  }, 1000);

  return { refresh, view: () => ctx.view };
}

/** The component's markup, once; render() fills it. */
function build(root, page) {
  const ui = {};
  ui.state = h('p', { id: 'host-state', class: 'host-line', role: 'status', 'aria-live': 'polite', text: 'Checking whether gnosis-host answers…' });
  ui.said = h('p', { id: 'host-said', class: 'muted small host-said', hidden: true });
  ui.version = h('dd', { id: 'host-version' });
  ui.providers = h('ul', { id: 'host-providers', class: 'host-providers' });
  ui.capabilities = h('dd', { id: 'host-capabilities' });
  // The setup page lists the MCP servers and their tools in its own step.
  ui.details = h('dl', { id: 'host-details', class: 'host-details', hidden: true },
    h('dt', { text: 'Version' }), ui.version,
    ...(page === 'setup' ? [] : [h('dt', { text: 'MCP servers' }), h('dd', {}, ui.providers), h('dt', { text: 'Tools' }), ui.capabilities]));

  ui.problemTitle = h('p', { class: 'card-title', id: 'host-problem-title' });
  ui.problemReason = h('p', { id: 'host-problem-reason', class: 'host-reason' });
  ui.stderr = h('pre', { id: 'host-stderr', class: 'pre', 'aria-label': 'What the server wrote on stderr', hidden: true });
  ui.fix = h('p', { id: 'host-fix' });
  ui.setupLink = h('a', { id: 'host-setup-link', href: chrome.runtime.getURL('bridge/setup/setup.html'), target: '_blank', text: 'Open the setup page', hidden: true });
  ui.fixCommand = h('code', { id: 'host-fix-command', class: 'command' });
  ui.fixTerminal = h('p', { class: 'muted small' }, 'In a terminal: ', ui.fixCommand);
  ui.problem = h('div', { id: 'host-problem', class: 'card error', role: 'alert', hidden: true },
    ui.problemTitle, ui.problemReason, ui.stderr, ui.fix, h('p', {}, ui.setupLink), ui.fixTerminal);

  ui.updateTitle = h('p', { class: 'card-title', id: 'host-update-title' });
  ui.updateMessage = h('p', { id: 'host-update-message' });
  ui.updateText = h('p', { id: 'host-update-text' });
  ui.updateActions = h('div', { id: 'host-update-actions' });
  ui.updateSourceText = h('span');
  ui.updateSourceCommand = h('code', { class: 'command', id: 'host-update-command' });
  ui.update = h('div', { id: 'host-update', class: 'card error', role: 'alert', hidden: true },
    ui.updateTitle, ui.updateMessage, ui.updateText, ui.updateActions,
    h('p', { class: 'muted small' }, ui.updateSourceText, ' ', ui.updateSourceCommand));

  ui.advice = h('p', { id: 'host-advice', class: 'advice' });
  ui.adviceCommand = h('code', { id: 'host-advice-command', class: 'command', hidden: true });
  ui.adviceBox = h('div', { id: 'host-advice-box', class: 'card warn', hidden: true }, ui.advice, ui.adviceCommand);

  ui.installIntro = h('p', { id: 'host-install-intro' });
  ui.installActions = h('div', { id: 'host-install-actions' });
  ui.installState = h('div', { id: 'install-state', class: 'card info', role: 'status', 'aria-live': 'polite', hidden: true });
  ui.locationInput = h('input', { id: 'host-location', type: 'url', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'host-location-error' });
  ui.locationError = h('p', { id: 'host-location-error', class: 'field-error' });
  ui.locationSaved = h('span', { class: 'muted small', role: 'status' });
  ui.locationReset = h('button', { type: 'button', class: 'quiet small', text: 'Use the release’s own' });
  ui.locationForm = h('form', { class: 'form-field' },
    h('label', { for: 'host-location', text: 'Where the release files are' }),
    h('p', { class: 'muted small', text: 'For a fork or a mirror: the folder of the release files; {version} stands for the version.' }),
    ui.locationInput, ui.locationError,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'small', text: 'Save' }), ui.locationReset, ui.locationSaved));
  ui.installBox = h('div', { id: 'host-install-box', class: 'host-install', hidden: true },
    ui.installIntro, ui.installActions,
    h('p', { class: 'muted small' }, 'From a source checkout, in the repository: ', h('code', { class: 'command', text: SOURCE_INSTALL })),
    h('details', { id: 'host-location-box', class: 'host-location' }, h('summary', { text: 'Download location' }), ui.locationForm));

  ui.recheck = h('button', { type: 'button', id: 'host-recheck', text: 'Check again' });
  ui.report = h('button', { type: 'button', id: 'host-report', text: 'Copy diagnostic report' });
  ui.reportState = h('p', { id: 'host-report-state', class: 'muted small', role: 'status', 'aria-live': 'polite' });
  ui.reportText = h('textarea', { id: 'host-report-text', readonly: true, rows: '10', 'aria-label': 'The diagnostic report', spellcheck: 'false' });
  ui.reportView = h('details', { id: 'host-report-view', class: 'host-report', hidden: true }, h('summary', { text: 'What was copied' }), ui.reportText);

  root.replaceChildren(ui.state, ui.said, ui.details, ui.problem, ui.update, ui.installBox, ui.installState, ui.adviceBox,
    h('div', { class: 'row host-actions' }, ui.recheck, ui.report), ui.reportState, ui.reportView);
  root.classList.add('host-card');
  root.dataset.page = page;
  return ui;
}
