// The Side Panel: chat view for agent tasks and the agent's settings.
//
// The agent loop runs here (AgentSession, inside the task pipeline), so
// closing the panel ends it; the service worker only holds chrome.debugger.
// This entry point wires the panel together at start-up: a task goes down
// the pipeline (agent/core/task_pipeline.js, built by sidepanel_task.js) and
// its events come back to sidepanel_log.js, which renders them; the settings
// are sidepanel_settings.js.

import { connectPanel } from './worker_link.js';
import { loadSettings } from './settings_store.js';
import { openConversationStore } from '../core/conversation_store.js';
import { createConversationBar } from './conversation_view.js';
import { attachReferenceImages } from './reference_images.js';
import { features } from '../../shared/browser.js';
import { panel } from './sidepanel_state.js';
import { show, showNeedsChromium } from './sidepanel_views.js';
import { addEntry, followHistory, scrollToEnd } from './sidepanel_log.js';
import { busy, createPipeline, fromPage, onSwitch, wireTaskControls } from './sidepanel_task.js';
import { fillForm, openSettings, showSetup, wireSettings } from './sidepanel_settings.js';
import { wireDesktopChoice } from './desktop_panel.js';
import { followDesktop, wireDesktopSettings } from './desktop_settings.js';
import { watchHostFit } from '../../shared/host_banner.js';
import { $ } from '../../shared/page.js';

/** Export: the conversation as a JSON file download, once every pending write has landed. */
async function exportConversation(id) {
  await panel.pipeline.settled();
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
  watchHostFit($('host-banner'));
  $('show-chat').addEventListener('click', () => show('chat'));
  $('show-settings').addEventListener('click', openSettings);
  panel.images = attachReferenceImages({ button: $('attach'), input: $('image-input'), pasteTarget: $('task'), list: $('attachments'), error: $('attach-error') });
  wireSettings();
  wireDesktopSettings();
  wireTaskControls();
  followHistory();
  [panel.settings, panel.template, panel.windowId] = await Promise.all([
    loadSettings(),
    fetch(chrome.runtime.getURL('agent/prompts/venus_system.txt')).then((r) => r.text()),
    chrome.windows.getCurrent().then((w) => w.id),
  ]);
  fillForm(panel.settings);
  showSetup();
  panel.store = await openConversationStore({ indexedDB });
  createPipeline();
  wireDesktopChoice();
  panel.bar = createConversationBar({
    store: panel.store,
    els: {
      select: $('conversation'), newButton: $('new-conversation'), exportButton: $('export-conversation'),
      deleteButton: $('delete-conversation'), confirmBox: $('confirm-delete'), confirmYes: $('confirm-delete-yes'),
      confirmNo: $('confirm-delete-no'), past: $('past'),
    },
    onSwitch: async (id, records) => {
      await onSwitch(id, records);
      // A conversation opens at its latest entry.
      scrollToEnd();
    },
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
    // A page's Page Assistant task, Stop, Pause or Resume.
    onPush: (push) => fromPage(push.kind, push),
    // The host's desktop servers or tools changed: the desktop choice and Settings → Desktop follow.
    onDesktop: () => { followDesktop().catch(() => {}); },
  });
  document.body.dataset.ready = 'true';
}

main();
