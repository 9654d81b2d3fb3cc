// Upload and Download for the agent, in the service worker, through the
// host's workspace folder (workspace.* methods; the folder is `workspace.dir`
// in the host's config).
//
// Upload: on every attach the file chooser is intercepted
// (Page.setInterceptFileChooserDialog); when the agent's click opens one
// (Page.fileChooserOpened) the next request carries the workspace
// inventory, and Upload(file=…) puts that file into the <input type=file>:
// first with DOM.setFileInputFiles and the file's absolute path (a trusted
// change event; works while the extension has file access), else by building
// a File in the page from the bytes the host read (untrusted events).
//
// Download: document responses on the controlled tab are paused at the
// response stage (Fetch domain); one that is an attachment
// (Content-Disposition) or an inline document (PDF, octet-stream) is
// aborted before the browser saves or shows it, and the next request says a
// download is waiting. Downloads that still start (an <a download> link) are
// cancelled in chrome.downloads.onCreated before a byte is written. Then
// Download(filename=…) fetches the URL here, with the browser's cookies, and
// streams it into the workspace (never overwriting, ≤ 256 MiB).
//
// Files a page builds itself (an Export button: blob: or data: URL) are
// cancelled the same way, told apart from the extension's own exports by
// their origin (a blob:chrome-extension:// URL, an extension referrer or
// byExtensionId). A data: URL has no origin, and on a page that sends no
// referrer (Referrer-Policy: no-referrer) no referrer either: it is the
// agent's when the controlled tab announced it (Page.downloadWillBegin) or
// the agent's action was running or had just run. A data: URL is decoded here; a blob: URL can only be read
// by its own origin, so its bytes are read at once in an isolated world of
// the controlled page (fetch, then slices through Runtime.callFunctionOn) and
// kept until Download. Pages often revoke the URL right after the click, so
// while the agent controls a tab its URL.revokeObjectURL takes effect after
// BLOB_GRACE_MS instead of at once. The name is Page.downloadWillBegin's.
//
// Rules live in core/file_transfer.js and the host; this file is chrome.* glue.

import { host } from '../../shared/host.js';
import { registerAction } from '../../shared/tab_executor.js';
import { actingRecently, addNote, attachedSessions, findSession, holdObservation, mustSession, onAttach, onCdpEvent, sendCdp } from './agent_sessions.js';
import { checkFileName, formatSize, suggestName, TransferError, TRANSFER_CODES } from '../core/file_transfer.js';
import { createWorkspaceClient, WORKSPACE_CODES } from '../core/workspace_client.js';
import { base64ToBytes, bytesToBase64 } from '../../shared/core/base64.js';
import { CODES } from '../../shared/core/codes.js';

const hostRequest = (method, params, opts) => host.request(method, params, opts);
const workspace = createWorkspaceClient({ request: hostRequest });

/** The session's Upload and Download state (agent_sessions.js openSession: transfer). */
const transferOf = (sessionId) => mustSession(sessionId).transfer;

function note(sessionId, text) {
  try { addNote(sessionId, text); } catch { /* the panel went away */ }
}

const cdp = (sessionId, method, params) => Promise.resolve().then(() => sendCdp(sessionId, method, params));

/** How long a revoked blob: URL of a controlled page stays readable. */
const BLOB_GRACE_MS = 60000;
/** Bytes read from the page per Runtime.callFunctionOn. */
const BLOB_PIECE_BYTES = 4 * 1024 * 1024;
const MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024;
/** url -> {name, sessionId}: a page-built download a controlled tab announced (Page.downloadWillBegin). */
const pageDownloads = new Map();

// Runs in the controlled page's main world (on attach and on every new
// document): revocations of blob: URLs are deferred, so a download the page
// starts and revokes at once can still be read.
function keepBlobUrls(graceMs) {
  const key = Symbol.for('gnosis.blobGrace');
  if (URL[key]) return;
  Object.defineProperty(URL, key, { value: true });
  URL.revokeObjectURL = new Proxy(URL.revokeObjectURL, {
    apply(target, self, args) { setTimeout(() => Reflect.apply(target, URL, args), graceMs); },
  });
}
const KEEP_BLOB_URLS = `(${keepBlobUrls})(${BLOB_GRACE_MS});`;

// Runs in an isolated world of the page, on the Blob: one piece as base64.
async function blobPiece(start, end) {
  const bytes = new Uint8Array(await this.slice(start, end).arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

const originOf = (u) => { try { return new URL(u).origin; } catch { return ''; } };
/** The origin a blob: or data: download belongs to ('' for data: URLs, whose origin is opaque). */
const blobOrigin = (url) => (/^blob:/i.test(url) ? originOf(url.slice(5)) : '');

function findFrame(tree, origin) {
  if (!origin || tree.frame.securityOrigin === origin) return tree.frame;
  for (const child of tree.childFrames || []) {
    const f = findFrame(child, origin);
    if (f && f.securityOrigin === origin) return f;
  }
  return null;
}

/** Reads a blob: URL's bytes in the controlled page, where its origin can fetch it. */
async function readBlobInPage(sessionId, url) {
  const { frameTree } = await cdp(sessionId, 'Page.getFrameTree');
  const frame = findFrame(frameTree, blobOrigin(url)) || frameTree.frame;
  const { executionContextId } = await cdp(sessionId, 'Page.createIsolatedWorld', { frameId: frame.id, worldName: 'gnosis-download' });
  const got = await cdp(sessionId, 'Runtime.evaluate', {
    expression: `fetch(${JSON.stringify(url)}).then((r) => r.blob())`, contextId: executionContextId, awaitPromise: true, returnByValue: false,
  });
  if (got.exceptionDetails) throw new Error(`the page could not read it (${got.exceptionDetails.exception?.description?.split('\n')[0] || got.exceptionDetails.text})`);
  const blob = got.result.objectId;
  try {
    const size = (await cdp(sessionId, 'Runtime.callFunctionOn', { objectId: blob, functionDeclaration: 'function () { return this.size; }', returnByValue: true })).result.value;
    if (size > MAX_DOWNLOAD_BYTES) throw new Error(`it is ${formatSize(size)}; downloads are limited to 256 MiB`);
    const bytes = new Uint8Array(size);
    for (let at = 0; at < size; at += BLOB_PIECE_BYTES) {
      const r = await cdp(sessionId, 'Runtime.callFunctionOn', {
        objectId: blob, functionDeclaration: blobPiece.toString(), arguments: [{ value: at }, { value: Math.min(size, at + BLOB_PIECE_BYTES) }], awaitPromise: true, returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(`the page could not read it (${r.exceptionDetails.text})`);
      bytes.set(base64ToBytes(r.result.value), at);
    }
    return bytes;
  } finally {
    cdp(sessionId, 'Runtime.releaseObject', { objectId: blob }).catch(() => {});
  }
}

/** Which controlled tab's session announced url (Page.downloadWillBegin), waiting briefly for the event; its name. */
async function announced(url) {
  for (let i = 0; i < 10 && !pageDownloads.has(url); i++) await new Promise((r) => setTimeout(r, 50));
  return pageDownloads.get(url) || null;
}

function pageDownloadName(url, item, named) {
  pageDownloads.delete(url);
  const fromItem = String(item.filename || '').split(/[\\/]/).pop();
  return [named?.name, fromItem].find((n) => n && checkFileName(n) === '') || '';
}

/** A blob: or data: download the controlled page started: its bytes are read now and kept for Download. */
async function interceptPageBuilt(sessionId, item, url, named) {
  const name = pageDownloadName(url, item, named);
  const label = name ? `'${name}'` : 'a file';
  let bytes;
  try {
    if (/^data:/i.test(url)) {
      const res = await fetch(url);
      bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length > MAX_DOWNLOAD_BYTES) throw new Error(`it is ${formatSize(bytes.length)}; downloads are limited to 256 MiB`);
    } else {
      bytes = await readBlobInPage(sessionId, url);
    }
  } catch (err) {
    const reason = String(err?.message || err);
    findSession(sessionId)?.transfer.state.downloadFailed({ suggestedName: name, reason });
    note(sessionId, `The page started a download (${label}), but it could not be saved: ${reason}. Click its button again to retry, or tell the user (CallUser).`);
    return;
  }
  await intercepted(sessionId, { url, referrer: item.referrer || undefined, suggestedName: name, mime: item.mime || undefined, size: bytes.length, bytes, inline: false });
}

/** True for a download the extension itself started (the panel's Export). */
function ownDownload(item, url) {
  const origin = chrome.runtime.getURL('').replace(/\/$/, '');
  return item.byExtensionId === chrome.runtime.id || url.startsWith(`blob:${origin}`) || String(item.referrer || '').startsWith(origin);
}

/** Content types shown inline that the agent treats as a download. */
const INLINE_DOCUMENTS = new Set(['application/pdf', 'application/octet-stream', 'application/zip', 'application/x-pdf']);

async function onChooser(sessionId, params) {
  const t = findSession(sessionId)?.transfer;
  if (!t) return;
  t.state.chooserOpened(params);
  try {
    const notes = await t.state.requestNotes({ listInventory: () => workspace.list() });
    t.unavailable = '';
    if (notes[0]) note(sessionId, notes[0]);
  } catch (err) {
    t.unavailable = `${err.message}${err.code === CODES.NOT_CONFIGURED ? '; set "workspace": {"dir": ...} in the gnosis-host config' : ''}`;
    note(sessionId, `A file chooser is open, but the workspace folder is not available (${err.message}). ${err.code === CODES.NOT_CONFIGURED ? 'The user must set "workspace": {"dir": ...} in the gnosis-host config. ' : ''}Tell the user (CallUser) instead of trying Upload.`);
  }
}

async function intercepted(sessionId, download) {
  const st = findSession(sessionId)?.transfer.state;
  if (!st) return;
  st.downloadIntercepted(download);
  const notes = await st.requestNotes({ listInventory: () => workspace.list() }).catch(() => []);
  if (notes.length) note(sessionId, notes[notes.length - 1]);
}

async function onDocumentPaused(sessionId, p) {
  const headers = {};
  for (const h of p.responseHeaders || []) headers[h.name.toLowerCase()] = h.value;
  const disposition = headers['content-disposition'] || '';
  const type = (headers['content-type'] || '').split(';')[0].trim().toLowerCase();
  const ok = p.responseStatusCode >= 200 && p.responseStatusCode < 300;
  const attachment = /^\s*attachment/i.test(disposition);
  if (ok && p.resourceType === 'Document' && (attachment || INLINE_DOCUMENTS.has(type))) {
    const size = Number(headers['content-length']);
    // The note is queued before the navigation ends, so the next observation carries it.
    await intercepted(sessionId, {
      url: p.request.url,
      referrer: p.request.headers?.Referer || undefined,
      suggestedName: suggestName(p.request.url, disposition),
      mime: type || undefined,
      size: headers['content-length'] !== undefined && Number.isFinite(size) ? size : undefined,
      inline: !attachment,
    }).catch(() => {});
    await cdp(sessionId, 'Fetch.failRequest', { requestId: p.requestId, errorReason: 'Aborted' }).catch(() => {});
    return;
  }
  await cdp(sessionId, 'Fetch.continueRequest', { requestId: p.requestId }).catch(() => {});
}

/**
 * Whether a download is the controlled tab's: the agent's comes from that
 * tab's site (a blob: URL carries its origin, an http(s) one its referrer); a
 * data: URL with no referrer is the agent's when its tab announced it or its
 * action ran just now. A download the user starts elsewhere during a task is
 * left alone. Resolves {ours, named} (named: the tab's announcement, if any).
 */
async function attribute(sessionId, tabId, item, url) {
  const acting = actingRecently(sessionId);
  const from = blobOrigin(url) || (item.referrer ? originOf(item.referrer) : '');
  if (from) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    return { ours: !tab || originOf(tab.url) === from, named: null };
  }
  if (!/^data:/i.test(url)) return { ours: true, named: null };
  const named = await announced(url);
  return { ours: named ? named.sessionId === sessionId : acting, named };
}

async function onDownloadCreated(item) {
  if (item.state !== 'in_progress') return;
  const url = item.finalUrl || item.url || '';
  const pageBuilt = /^(blob|data):/i.test(url);
  if (!pageBuilt && !/^https?:/i.test(url)) return;
  if (pageBuilt && ownDownload(item, url)) return; // the panel's own exports pass
  const candidates = attachedSessions();
  if (candidates.length !== 1) return; // not ours to stop, or ambiguous
  const { id: sessionId, tabId } = candidates[0];
  const taking = (async () => {
    const { ours, named } = await attribute(sessionId, tabId, item, url);
    if (!ours) return;
    await chrome.downloads.cancel(item.id).catch(() => {});
    chrome.downloads.erase({ id: item.id }).catch(() => {});
    if (pageBuilt) {
      await interceptPageBuilt(sessionId, item, url, named || (await announced(url)));
      return;
    }
    await intercepted(sessionId, {
      url,
      referrer: item.referrer || undefined,
      suggestedName: suggestName(url),
      mime: item.mime || undefined,
      size: item.totalBytes > 0 ? item.totalBytes : undefined,
      inline: false,
    });
  })();
  // The next observation waits for this, so the note it queues reaches the very next request.
  holdObservation(sessionId, taking);
  await taking;
}

function joinPath(dir, rel) {
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
  return `${dir.replace(/[\\/]+$/, '')}${sep}${sep === '\\' ? rel.replaceAll('/', '\\') : rel}`;
}

/* global DataTransfer -- putFileInPage runs in the page (Runtime.callFunctionOn), where the DOM is */

// Runs in the page, on the <input type=file>: the fallback when
// DOM.setFileInputFiles is refused.
function putFileInPage(base64, name, mime) {
  const bin = atob(base64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type: mime }));
  this.files = dt.files;
  this.dispatchEvent(new Event('input', { bubbles: true }));
  this.dispatchEvent(new Event('change', { bubbles: true }));
  return this.files.length;
}

function refused(err) {
  if (err instanceof TransferError) return { text: err.message, error: true };
  throw err;
}

/** Upload(file='rel/path'): supplies a workspace file to the chooser the last click opened. */
export async function uploadAction(args, env, { directPath = true } = {}) {
  let r;
  try {
    r = transferOf(env.sessionId).state.resolve({ name: 'Upload', args });
  } catch (err) {
    const why = findSession(env.sessionId)?.transfer.unavailable;
    if (why && err instanceof TransferError) return { text: `Upload refused: the workspace folder is not available (${why}).`, error: true };
    return refused(err);
  }
  const { entry, chooser } = r;
  const label = `${entry.path} (${formatSize(entry.size)})`;
  let directError = 'not tried';
  if (directPath) {
    try {
      const info = await workspace.info();
      await env.send('DOM.setFileInputFiles', { files: [joinPath(info.dir, entry.path)], backendNodeId: chooser.backendNodeId });
      return { text: `uploaded ${label} into the file input (DOM.setFileInputFiles)` };
    } catch (err) {
      directError = err?.message || String(err);
    }
  }
  try {
    const file = await workspace.readFile(entry.path);
    const { object } = await env.send('DOM.resolveNode', { backendNodeId: chooser.backendNodeId });
    const res = await env.send('Runtime.callFunctionOn', {
      objectId: object.objectId,
      functionDeclaration: putFileInPage.toString(),
      arguments: [{ value: bytesToBase64(file.bytes) }, { value: entry.path.split('/').pop() }, { value: file.mime }],
      returnByValue: true,
    });
    if (res.exceptionDetails) throw new Error(res.exceptionDetails.exception?.description || res.exceptionDetails.text);
    return { text: `uploaded ${label} into the file input (built in the page; DOM.setFileInputFiles: ${directError})` };
  } catch (err) {
    return { text: `Upload of ${entry.path} failed: ${err?.message || err}`, error: true };
  }
}

/** Download(filename='name.ext'): saves the intercepted download into the workspace. */
export async function downloadAction(args, env) {
  const st = transferOf(env.sessionId).state;
  let r;
  try { r = st.resolve({ name: 'Download', args }); } catch (err) { return refused(err); }
  try {
    // Where the file came from goes with it (Windows marks it as from the internet).
    const source = { url: r.url, referrer: r.referrer };
    const saved = r.bytes
      ? { ...(await workspace.save(r.filename, r.bytes, { source })), mime: r.mime || 'application/octet-stream' }
      : await workspace.saveFromUrl(r.filename, r.url, { source });
    st.downloadSaved({ name: r.suggestedName, filename: saved.path, step: env.step });
    return { text: `saved ${saved.path} (${formatSize(saved.size)}, ${saved.mime}) into the workspace` };
  } catch (err) {
    // Keep the download pending so the model can try another name.
    if (err.code === CODES.FILE_EXISTS || err.code === TRANSFER_CODES.INVALID_NAME) st.downloadIntercepted({ url: r.url, referrer: r.referrer, mime: r.mime, size: r.size, bytes: r.bytes });
    let hint = err.code === CODES.FILE_EXISTS ? '; choose another name' : '';
    if (err.code === WORKSPACE_CODES.DOWNLOAD_FAILED && !r.bytes) {
      // The worker fetches with the page's cookies, which needs access to that site.
      const origin = new URL(r.url).origin;
      const granted = await chrome.permissions.contains({ origins: [`${origin}/*`] }).catch(() => true);
      if (!granted) hint = `; the extension has no access to ${origin}, so it cannot fetch the file (tell the user: CallUser)`;
    }
    return { text: `Download(filename=${JSON.stringify(r.filename)}) failed: ${err.message}${hint}`, error: true };
  }
}

/**
 * Wires the interception hooks and the Upload and Download actions. Called
 * from agent_worker.js init(). What a session holds goes with its session
 * (agent_sessions.js).
 */
export function initTransfers() {
  onAttach(async ({ sessionId }) => {
    await cdp(sessionId, 'Page.setInterceptFileChooserDialog', { enabled: true }).catch(() => {});
    await cdp(sessionId, 'Fetch.enable', { patterns: [{ resourceType: 'Document', requestStage: 'Response' }] }).catch(() => {});
    await cdp(sessionId, 'Page.addScriptToEvaluateOnNewDocument', { source: KEEP_BLOB_URLS }).catch(() => {});
    await cdp(sessionId, 'Runtime.evaluate', { expression: KEEP_BLOB_URLS }).catch(() => {});
  });
  onCdpEvent(({ sessionId, method, params }) => {
    if (method === 'Page.downloadWillBegin' && /^(blob|data):/i.test(params.url || '')) {
      pageDownloads.set(params.url, { name: params.suggestedFilename, sessionId });
      if (pageDownloads.size > 50) pageDownloads.delete(pageDownloads.keys().next().value);
    }
  });
  onCdpEvent(({ sessionId, method, params }) => {
    if (method === 'Page.fileChooserOpened') onChooser(sessionId, params);
    else if (method === 'Fetch.requestPaused') onDocumentPaused(sessionId, params);
  });
  chrome.downloads?.onCreated?.addListener((item) => { onDownloadCreated(item).catch(() => {}); });
  registerAction('Upload', (args, env) => uploadAction(args, env));
  registerAction('Download', downloadAction);
}
