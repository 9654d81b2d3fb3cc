// Firefox's sidebar: where Chromium browsers show the browser agent, it says
// why the agent is absent here (shared/browser.js words it) and links the
// chat bridge's options, which work in Firefox.
import { AGENT_NEEDS_CHROMIUM } from '../shared/browser.js';

document.getElementById('needs-chromium').textContent = AGENT_NEEDS_CHROMIUM;
document.body.dataset.ready = 'true';
