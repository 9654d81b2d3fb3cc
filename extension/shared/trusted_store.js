// Values a content script must never write, kept where none can: the
// extension origin's own IndexedDB ("gnosis-trusted"), which only the
// worker and the extension's pages open (a content script's IndexedDB is the
// web page's). chrome.storage.local is not such a place in Firefox: it has
// no storage.local.setAccessLevel, so a compromised content script there can
// read and write every key. Kept here: the release download location the
// user confirmed on an extension page, the tools the approval window made
// "always allowed", each chat site's settings (what bounds what runs
// unattended: the calls without you, the settle time, where replies are
// read and results written, auto-send), and the agent's desktop grants by
// kind. Should IndexedDB be unavailable (a browser that refuses it), the
// values live in the worker's memory for its lifetime.
// Thin glue: open, get, set, remove; the rules about the values are their
// callers'.

const DB = 'gnosis-trusted';
const STORE = 'values';
const memory = new Map();
let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve) => {
      let req;
      try {
        req = indexedDB.open(DB, 1);
      } catch {
        resolve(null);
        return;
      }
      req.onupgradeneeded = () => req.result.createObjectStore(STORE);
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => resolve(null);
      req.onblocked = () => resolve(null);
    });
  }
  return opening;
}

function run(mode, fn) {
  return open().then((db) => {
    if (!db) return undefined;
    return new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const req = fn(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(req?.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  }).catch(() => undefined);
}

/** The value under key, or undefined. */
export async function trustedGet(key) {
  const db = await open();
  if (!db) return memory.get(key);
  return run('readonly', (s) => s.get(key));
}

/** Stores a (structured-cloneable) value under key. */
export async function trustedSet(key, value) {
  const db = await open();
  if (!db) {
    memory.set(key, value);
    return;
  }
  await run('readwrite', (s) => s.put(value, key));
}

/** The keys that begin with prefix. */
export async function trustedKeys(prefix = '') {
  const db = await open();
  const all = db ? (await run('readonly', (st) => st.getAllKeys())) || [] : [...memory.keys()];
  return all.filter((k) => typeof k === 'string' && k.startsWith(prefix));
}

/** Removes key. */
export async function trustedRemove(key) {
  memory.delete(key);
  if (await open()) await run('readwrite', (s) => s.delete(key));
}

/**
 * Moves a value an older version kept in storage.local into this store,
 * once. Chromium closed storage.local to content scripts (setAccessLevel),
 * so its value is the user's and moves; Firefox could not, so its value may
 * be a content script's and is dropped.
 * @returns {Promise<any>} the value now under key here
 */
export async function adoptFromLocal(key) {
  const here = await trustedGet(key);
  const legacy = (await chrome.storage.local.get(key).catch(() => ({})))[key];
  if (legacy === undefined) return here;
  const trusted = typeof chrome.storage.local.setAccessLevel === 'function';
  if (here === undefined && trusted) await trustedSet(key, legacy);
  await chrome.storage.local.remove(key).catch(() => {});
  return here === undefined && trusted ? legacy : here;
}
