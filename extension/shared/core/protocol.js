// The wire protocols this extension speaks, and whether a host fits them.
// The host reports the number of the protocol it speaks in health
// ("protocol", an integer; a host whose health has none speaks protocol 1:
// docs/protocol.md "Versions"). When the host's number is outside PROTOCOL,
// the service worker sends that host nothing but health (NativeClient's
// `compatible` option), and every page says which side is older. Pure.

/**
 * The protocols this extension speaks, [min, max]. 2 brought the protocol
 * number in health, the report method and the providers.* methods the setup
 * page needs; raise min when the extension starts to need something an older
 * host lacks, max when it has learned a newer host's change.
 */
export const PROTOCOL = Object.freeze({ min: 2, max: 2 });

/**
 * The protocol a health reply says the host speaks: its "protocol" when it is
 * a positive integer, 1 when the field is absent, null when it is there but
 * unreadable (a string, a fraction, zero).
 * @param {object|null|undefined} health
 * @returns {number|null}
 */
export function hostProtocol(health) {
  if (!health || typeof health !== 'object' || !Object.hasOwn(health, 'protocol')) return 1;
  const p = health.protocol;
  return Number.isInteger(p) && p >= 1 ? p : null;
}

/**
 * Whether a host fits the range, and if not, which side is older.
 * @param {object|null|undefined} health a health reply (ok: true)
 * @param {{min: number, max: number}} [range]
 * @returns {{fits: boolean, older: 'host'|'extension'|null, host: number|null, min: number, max: number}}
 *   older is null when the host fits, or when its protocol cannot be read.
 */
export function protocolFit(health, range = PROTOCOL) {
  const host = hostProtocol(health);
  const base = { host, min: range.min, max: range.max };
  if (host === null) return { fits: false, older: null, ...base };
  if (host < range.min) return { fits: false, older: 'host', ...base };
  if (host > range.max) return { fits: false, older: 'extension', ...base };
  return { fits: true, older: null, ...base };
}

/** The range as people read it: "2", or "2 to 3". */
export function rangeText(range = PROTOCOL) {
  return range.min === range.max ? String(range.min) : `${range.min} to ${range.max}`;
}

/**
 * Why nothing but health goes to this host, as the worker rejects a request
 * (message) and as a page heads its update card (title). null when it fits.
 * @param {object} health
 * @param {{extensionVersion?: string, range?: {min: number, max: number}}} [ctx]
 * @returns {{title: string, message: string}|null}
 */
export function incompatibility(health, { extensionVersion = '', range = PROTOCOL } = {}) {
  const fit = protocolFit(health, range);
  if (fit.fits) return null;
  const hostName = `gnosis-host${health?.version ? ` ${health.version}` : ''}`;
  const extName = `this extension${extensionVersion ? ` (${extensionVersion})` : ''}`;
  const speaks = `${hostName} speaks protocol ${fit.host ?? 'unknown'}; ${extName} speaks protocol ${rangeText(range)}`;
  if (fit.older === 'host') {
    return { title: 'gnosis-host is older than this extension', message: `${speaks}. Update gnosis-host; until then the extension sends it nothing but a health check.` };
  }
  if (fit.older === 'extension') {
    return { title: 'This extension is older than gnosis-host', message: `${speaks}. Update the extension; until then it sends the host nothing but a health check.` };
  }
  return {
    title: 'gnosis-host reports a protocol this extension cannot read',
    message: `${hostName} reports protocol ${JSON.stringify(health?.protocol)}, which is not a number this extension knows (it speaks ${rangeText(range)}). Reinstall gnosis-host from the release that matches the extension; until then the extension sends it nothing but a health check.`,
  };
}
