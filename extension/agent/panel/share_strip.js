// The share control at the top of the Side Panel (shared/share_card.js): the
// tab in front of this window, shared with an armed chat site or not.
import { createShareCard } from '../../shared/share_card.js';

const container = document.getElementById('tab-share');
if (container) createShareCard(container);
