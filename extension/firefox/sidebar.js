// Firefox's sidebar: where Chromium browsers show the browser agent, it says
// why the agent is absent here (shared/browser.js words it) and links the
// chat bridge's options, which work in Firefox. Above them, the share
// control for the tab in front (shared/share_card.js), as in the side panel.
import { AGENT_NEEDS_CHROMIUM } from '../shared/browser.js';
import { createShareCard } from '../shared/share_card.js';

document.getElementById('needs-chromium').textContent = AGENT_NEEDS_CHROMIUM;
createShareCard(document.getElementById('tab-share'));
document.body.dataset.ready = 'true';
