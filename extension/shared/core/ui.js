// What the extension's pages say about work in progress, as pure functions of
// what the host and the worker report: a call's progress and a retry's
// countdown (the host's own state is host_view.js's). The options page, the
// toolbar badge and the side panel all use these, so the same state reads the
// same everywhere. No chrome.* calls; tested with node --test.

/**
 * A call's progress as one line: "running computer.copy — 40% · copying files".
 * Without a total the count is shown as is ("3 done").
 * @param {string} capability
 * @param {{progress?: number, total?: number, message?: string}} [p]
 */
export function progressText(capability, p) {
  const parts = [];
  const pct = progressPercent(p);
  if (pct !== null) parts.push(`${pct}%`);
  else if (Number.isFinite(p?.progress)) parts.push(`${formatNumber(p.progress)} done`);
  if (typeof p?.message === 'string' && p.message.trim()) parts.push(p.message.trim());
  return `running ${capability}${parts.length ? ` — ${parts.join(' · ')}` : ''}`;
}

/** Whole percent of a progress report with a positive total, clamped to 0..100; null without one. */
export function progressPercent(p) {
  if (!Number.isFinite(p?.progress) || !Number.isFinite(p?.total) || p.total <= 0) return null;
  return Math.max(0, Math.min(100, Math.floor((p.progress / p.total) * 100)));
}

function formatNumber(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/**
 * A retry's line while it waits: "HTTP 503 — retrying in 4 s (attempt 2)".
 * @param {{reason: string, attempt: number, until: number}} retry until: when the next try starts (ms epoch)
 * @param {number} now ms epoch
 */
export function retryText(retry, now) {
  const left = Math.max(0, Math.ceil((retry.until - now) / 1000));
  const when = left > 0 ? `retrying in ${left} s` : 'retrying now';
  return `${retry.reason} — ${when} (attempt ${retry.attempt + 1})`;
}
