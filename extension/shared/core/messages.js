// The messages the extension's contexts exchange, in one place: the runtime
// messages the service worker's handler maps take (background.js routes them
// through shared/core/router.js, which checks the sender), the messages the
// worker sends to content scripts, and the runtime ports with the messages
// they carry. Senders and handler maps name a message by these constants,
// never by a string literal (extension/test/layout.test.js checks it in
// every module, the content scripts' included). Pure.

/** Messages the chat bridge's worker half handles (runtime.sendMessage → bridge/worker/bridge_worker.js). */
export const BRIDGE = Object.freeze({
  GET_SITE: 'bridge.getSite',
  SAVE_SITE: 'bridge.saveSite',
  LIST_SITES: 'bridge.listSites',
  START: 'bridge.start',
  STOP: 'bridge.stop',
  GET_GRANTS: 'bridge.getGrants',
  SET_GRANTS: 'bridge.setGrants',
  APPROVAL: 'bridge.approval',
  APPROVE: 'bridge.approve',
  CAPABILITY_PROMPT: 'bridge.capabilityPrompt',
  INSERT_PROMPT: 'bridge.insertPrompt',
  DETECT_PRESET: 'bridge.detectPreset',
  PICK: 'bridge.pick',
  DETECT: 'bridge.detect',
  CHECK: 'bridge.check',
  // The setup page and the Host section (bridge/worker/setup_worker.js): the host's MCP servers (providers.*).
  PROVIDERS: 'bridge.providers',
  SET_PROVIDER: 'bridge.setProvider',
  REMOVE_PROVIDER: 'bridge.removeProvider',
  CHECK_PROVIDER: 'bridge.checkProvider',
  CANCEL_CHECK: 'bridge.cancelCheck',
  // Remembered approval choices (bridge/worker/remembered_choices.js).
  REMEMBERED: 'bridge.remembered',
  FORGET_CHOICES: 'bridge.forgetChoices',
  // From the content script (a settled reply goes over the PORTS.BRIDGE_CALL port instead):
  REPORT: 'bridge.report',
  HUMAN: 'bridge.human',
});

/**
 * What any extension page asks about the host (the host card of the options
 * and setup pages, shared/host_card.js; the host banner; the Agent and grants
 * views): its status, the diagnostic report, the release download location.
 * Handled by the worker (bridge/worker/bridge_worker.js, setup_worker.js).
 */
export const HOST_CARD = Object.freeze({
  STATUS: 'bridge.hostStatus',
  DIAGNOSTIC_REPORT: 'bridge.diagnosticReport',
  GET_DOWNLOAD_LOCATION: 'bridge.getDownloadLocation',
  SET_DOWNLOAD_LOCATION: 'bridge.setDownloadLocation',
});

/**
 * The activity log's messages, handled by the bridge's worker half
 * (bridge/worker/activity_log.js) and sent only by extension pages: the options
 * page's Activity view lists and clears it, the Side Panel records each
 * agent task (agent/core/panel_contract.js recordTask).
 */
export const ACTIVITY = Object.freeze({
  LIST: 'activity.list',
  CLEAR: 'activity.clear',
  TASK: 'activity.task',
});

/**
 * The share control's messages (the side panel's and Firefox's sidebar's,
 * shared/share_card.js → bridge/worker/browser_tabs.js), from extension
 * pages only: what a tab is shared with (or why it cannot be), and a share
 * made or ended.
 */
export const BROWSER_SHARE = Object.freeze({
  VIEW: 'browser.shareView',
  SET: 'browser.share',
});

/** Messages the chat bridge's content script handles (tabs.sendMessage → bridge/page/content.js). */
export const BRIDGE_PAGE = Object.freeze({
  CONFIGURE: 'bridge.configure',
  DISARM: 'bridge.disarm',
  PICK: 'bridge.pick',
  DETECT: 'bridge.detect',
  CHECK: 'bridge.check',
  INSERT: 'bridge.insert',
  NOTICE: 'bridge.notice',
  PING: 'bridge.ping',
});

/** Messages the browser agent's worker half handles (runtime.sendMessage → agent/worker/observe_act.js; both halves: agent/core/panel_contract.js). */
export const AGENT = Object.freeze({
  ATTACH: 'agent.attach',
  OBSERVE: 'agent.observe',
  ACT: 'agent.act',
  DETACH: 'agent.detach',
  // From the Page Assistant's frame (only the one its content script placed):
  PAGE_TASK: 'agent.pageTask',
  PAGE_STOP: 'agent.pageStop',
  PAGE_PAUSE: 'agent.pagePause',
  PAGE_RESUME: 'agent.pageResume',
});

/**
 * Messages the agent's desktop half handles (runtime.sendMessage →
 * agent/worker/desktop_worker.js): the desktop a task can act on (which
 * server and profile, or why none), its screenshot and actions through the
 * host, the agent's desktop grants, and Stop of the action in flight.
 */
export const DESKTOP = Object.freeze({
  STATE: 'desktop.state',
  OBSERVE: 'desktop.observe',
  ACT: 'desktop.act',
  STOP: 'desktop.stop',
  CHECK_PROFILE: 'desktop.checkProfile',
  GET_GRANTS: 'desktop.getGrants',
  SET_GRANTS: 'desktop.setGrants',
  FORGET_CHOICES: 'desktop.forgetChoices',
});

/** Messages the Page Assistant's worker half handles (runtime.sendMessage → agent/worker/page_assistant_worker.js). */
export const PAGE_ASSISTANT = Object.freeze({
  SET_ENABLED: 'pageAssistant.setEnabled',
  STATE: 'pageAssistant.state',
  RELAY: 'pageAssistant.relay',
  /**
   * The one-time token that marks the bar's frame the content script placed:
   * content script → worker (a fresh token), content script → its frame
   * (window.postMessage to that frame only), frame → worker (on its port).
   */
  FRAME_TOKEN: 'pageAssistant.frameToken',
});

/**
 * The type of the message that carries one Page Assistant event ({type,
 * event}) from the worker to the content script (tabs.sendMessage) and to the
 * bar's frame (its port).
 */
export const PAGE_ASSISTANT_EVENT = 'gnosis.pageAssistant';

/** Names of the runtime ports. */
export const PORTS = Object.freeze({
  /** A Side Panel's port to the agent's worker half; its disconnection detaches the debugger. */
  AGENT: 'agent',
  /** One extension page's host request through the worker (shared/host_proxy.js). */
  HOST: 'agent-host',
  /** The Page Assistant bar's frame to the worker. */
  PAGE_ASSISTANT_FRAME: 'pageAssistant.frame',
  /**
   * The chat bridge's content script to the worker, one per settled reply:
   * its closing before the verdict tells the page the worker went away.
   */
  BRIDGE_CALL: 'bridge.call',
});

/** Message types on the bridge's call port (PORTS.BRIDGE_CALL), either way. */
export const BRIDGE_CALL = Object.freeze({
  /** Content script → worker: one settled reply ({page, reply, arrived, why, arrivedAt, text, index, conversation}). */
  EXTRACTED: 'bridge.extracted',
  /** Worker → content script: the reply is a call now running on the desktop ({capability, interrupted: the text to write if the port closes, why: the notice then}). */
  RUNNING: 'bridge.running',
  /** Worker → content script, before the verdict: one image of the result to attach ({n, mime, base64, name}). */
  IMAGE: 'bridge.image',
  /** Worker → content script: the verdict ({action: 'none'|'inject'|'stopped', reason?, text?, autoSend?, images?: {capability, list}}). */
  VERDICT: 'bridge.verdict',
  /** Content script → worker: the result was written (and sent), or why not ({ok, stage, error?, images?: what became of each}). */
  DELIVERED: 'bridge.delivered',
});

/** Message types on the agent port (PORTS.AGENT), either way. */
export const AGENT_PORT = Object.freeze({
  /** Panel → worker: the panel's session id and window. */
  HELLO: 'hello',
  /** Worker → panel: the session is registered. */
  READY: 'ready',
  /** Panel → worker: keeps the worker alive during a long model request. */
  PING: 'ping',
  /** Worker → panel: a task (or a reply) typed in a page's Page Assistant. */
  PAGE_TASK: 'pageTask',
  /** Worker → panel: Stop pressed in a page's Page Assistant. */
  PAGE_STOP: 'pageStop',
  /** Worker → panel: Pause pressed in a page's Page Assistant. */
  PAGE_PAUSE: 'pagePause',
  /** Worker → panel: Resume pressed in a page's Page Assistant. */
  PAGE_RESUME: 'pageResume',
  /** Worker → panel: the desktop offer changed (a desktop server added, removed, started or gone; a profile saved). */
  DESKTOP_CHANGED: 'desktopChanged',
});
