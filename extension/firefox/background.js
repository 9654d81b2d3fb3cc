// The extension's background in Firefox (an event page, the manifest's
// background.scripts): the chat bridge alone. The browser agent, and the
// bridge's browser.* tools that see or act on a tab (browser_tab_tools.js),
// drive tabs through chrome.debugger, which Firefox does not offer, so
// their code is neither loaded here nor packed into the Firefox package
// (the bridge lists those tools as unavailable); the toolbar button opens
// the sidebar (sidebar.html), which says so.
import { mergeHandlers } from '../shared/core/router.js';
import { listen } from '../shared/listen.js';
import { handlers, init } from '../bridge/worker/bridge_worker.js';

listen(mergeHandlers(handlers));
init();
chrome.action.onClicked.addListener(() => { chrome.sidebarAction.toggle(); });
