// The Side Panel: chat view for agent tasks and the agent's settings.
//
// The agent loop runs here (AgentSession), so closing the panel ends it; the
// service worker only holds chrome.debugger. This entry point wires the
// panel together at start-up: the task run is sidepanel_task.js, its log
// sidepanel_log.js, the settings sidepanel_settings.js; the rules live in
// agent/core/config_validation.js, the loop in agent/core/agent_session.js.

import { connectPanel } from './browser_bridge.js';
import { loadSettings } from './settings.js';
import { openConversationStore } from '../core/conversation_store.js';
import { createConversationBar } from './conversation_view.js';
import { attachReferenceImages } from './reference_images.js';
import { pageRelay } from './page_assistant_panel.js';
import { features } from '../../shared/browser.js';
import { AGENT_PORT } from '../../shared/core/messages.js';
import { panel, writesSettled } from './sidepanel_state.js';
import { show, showNeedsChromium } from './sidepanel_views.js';
import { addEntry, setStatus } from './sidepanel_log.js';
import { busy, onSwitch, runSafely, stopTask } from './sidepanel_task.js';
import { fillForm, openSettings, showSetup, wireSettings } from './sidepanel_settings.js';

const $ = (id) => document.getElementById(id);

/** Export: the conversation as a JSON file download, once every pending write has landed. */
async function exportConversation(id) {
  await writesSettled();
  const x = await panel.store.exportConversation(id, { keepScreenshots: panel.settings.keepScreenshots });
  const url = URL.createObjectURL(new Blob([x.text], { type: x.mimeType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = x.filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

async function main() {
  if (!features(chrome).agent) return showNeedsChromium();
  $('show-chat').addEventListener('click', () => show('chat'));
  $('show-settings').addEventListener('click', openSettings);
  panel.images = attachReferenceImages({ button: $('attach'), input: $('image-input'), pasteTarget: $('task'), list: $('attachments'), error: $('attach-error') });
  wireSettings();
  $('retry-stop').addEventListener('click', () => $('stop').click());
  $('task-form').addEventListener('submit', (ev) => { ev.preventDefault(); runSafely($('task').value); });
  $('task').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); runSafely($('task').value); }
  });
  $('stop').addEventListener('click', stopTask);
  [panel.settings, panel.template, panel.windowId] = await Promise.all([
    loadSettings(),
    fetch(chrome.runtime.getURL('agent/prompts/venus_system.txt')).then((r) => r.text()),
    chrome.windows.getCurrent().then((w) => w.id),
  ]);
  fillForm(panel.settings);
  showSetup();
  panel.store = await openConversationStore({ indexedDB });
  panel.bar = createConversationBar({
    store: panel.store,
    els: {
      select: $('conversation'), newButton: $('new-conversation'), exportButton: $('export-conversation'),
      deleteButton: $('delete-conversation'), confirmBox: $('confirm-delete'), confirmYes: $('confirm-delete-yes'),
      confirmNo: $('confirm-delete-no'), past: $('past'),
    },
    onSwitch,
    onExport: (id) => exportConversation(id).catch((err) => addEntry('error', `Could not export: ${err?.message || err}`)),
    busy,
  });
  // ?conversation=<id> (the Activity view's "Open the conversation") opens that conversation.
  const asked = new URLSearchParams(location.search).get('conversation');
  if (asked) await panel.store.setActive(asked).catch(() => {});
  await panel.bar.start();
  await connectPanel({
    sessionId: panel.sessionId,
    windowId: panel.windowId,
    onMessage: (m) => {
      // The Page Assistant: a page's task runs like one typed here; its Stop is this Stop.
      if (m.type === AGENT_PORT.PAGE_TASK && pageRelay.accept(m.tabId, busy())) runSafely(m.task, { tabId: m.tabId, reply: m.reply === true });
      if (m.type === AGENT_PORT.PAGE_STOP && pageRelay.owns(m.tabId)) $('stop').click();
    },
  });
  setStatus(panel.session?.waitingForUser ? 'waiting' : 'idle', '');
  document.body.dataset.ready = 'true';
}

main();
