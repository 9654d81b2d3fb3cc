// The options page's Host section: the shared host-status component
// (shared/host_card.js: live state, version and protocol fit, MCP servers,
// problems with the server's stderr, the one-click install, the update when
// the protocols do not fit, and "Copy diagnostic report"), with Start gated
// on a host that answers and fits.
import { $ } from './options_page.js';
import { mountHostCard } from '../../shared/host_card.js';
import { setHostGate } from './options_status.js';

let card = null;

/**
 * The host's state, asked now (refresh) or as the component last saw it
 * (it follows the host's events through the worker by itself).
 * @returns {Promise<boolean>} whether the host answers and fits
 */
export async function refreshHost(refresh = true) {
  const v = refresh || !card.view() ? await card.refresh(refresh) : card.view();
  return v.connected;
}

/**
 * How many tools the host lists, as the section last heard it; null while the
 * host does not answer. wait: before the section's first answer, ask for it
 * (the grants table read at the page's start then needs no second read).
 */
export async function hostCapabilities({ wait = false } = {}) {
  const v = card?.view() || (wait ? await card.refresh(false).catch(() => null) : null);
  return v?.answers ? v.capabilities : null;
}

/** Mounts the Host section. */
export function wireHost() {
  card = mountHostCard($('host-card'), {
    page: 'options', chip: $('host-chip'),
    onView: (v) => setHostGate(v.connected, v.startBlocked),
  });
}
