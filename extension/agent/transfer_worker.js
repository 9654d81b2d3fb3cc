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
// Also serves extension pages' host requests (host_proxy.js).
//
// Rules live in file_transfer.js and the host; this file is chrome.* glue.

import { host } from '../host.js';
import { registerAction } from './executor.js';
import { addNote, onAttach, onCdpEvent, onSessionEnd, sendCdp, sessionForTab } from './worker.js';
import { createTransferState, formatSize, suggestName, TransferError } from './file_transfer.js';
import { bytesToBase64, createWorkspaceClient } from './workspace_client.js';
import { PORT_NAME, serveProxiedPort } from './host_proxy.js';

const hostRequest = (method, params, opts) => host.request(method, params, opts);
const workspace = createWorkspaceClient({ request: hostRequest });
/** sessionId -> TransferState */
const states = new Map();
/** sessionId -> tabId of its latest attach (to attribute chrome.downloads items). */
const attachedTabs = new Map();
/** sessionId -> why the workspace could not be listed for the open chooser. */
const unavailable = new Map();

function stateOf(sessionId) {
  let s = states.get(sessionId);
  if (!s) {
    s = createTransferState();
    states.set(sessionId, s);
  }
  return s;
}

function note(sessionId, text) {
  try { addNote(sessionId, text); } catch { /* the panel went away */ }
}

const cdp = (sessionId, method, params) => Promise.resolve().then(() => sendCdp(sessionId, method, params));

/** Content types shown inline that the agent treats as a download. */
const INLINE_DOCUMENTS = new Set(['application/pdf', 'application/octet-stream', 'application/zip', 'application/x-pdf']);

async function onChooser(sessionId, params) {
  const st = stateOf(sessionId);
  st.chooserOpened(params);
  try {
    const notes = await st.requestNotes({ listInventory: () => workspace.list() });
    unavailable.delete(sessionId);
    if (notes[0]) note(sessionId, notes[0]);
  } catch (err) {
    unavailable.set(sessionId, `${err.message}${err.code === 'NOT_CONFIGURED' ? '; set "workspace": {"dir": ...} in the gnosis-host config' : ''}`);
    note(sessionId, `A file chooser is open, but the workspace folder is not available (${err.message}). ${err.code === 'NOT_CONFIGURED' ? 'The user must set "workspace": {"dir": ...} in the gnosis-host config. ' : ''}Tell the user (CallUser) instead of trying Upload.`);
  }
}

async function intercepted(sessionId, download) {
  const st = stateOf(sessionId);
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

async function onDownloadCreated(item) {
  if (item.state !== 'in_progress') return;
  if (!/^https?:/i.test(item.finalUrl || item.url || '')) return; // the panel's own exports (blob:) pass
  const candidates = [...attachedTabs].filter(([sessionId, tabId]) => sessionForTab(tabId)?.sessionId === sessionId);
  if (candidates.length !== 1) return; // not ours to stop, or ambiguous
  const [sessionId, tabId] = candidates[0];
  // A download the user starts elsewhere during a task is left alone: the
  // agent's comes from the controlled tab's site.
  if (item.referrer) {
    const tab = await chrome.tabs.get(tabId).catch(() => null);
    const origin = (u) => { try { return new URL(u).origin; } catch { return ''; } };
    if (tab && origin(tab.url) !== origin(item.referrer)) return;
  }
  await chrome.downloads.cancel(item.id).catch(() => {});
  chrome.downloads.erase({ id: item.id }).catch(() => {});
  const url = item.finalUrl || item.url;
  await intercepted(sessionId, {
    url,
    suggestedName: suggestName(url),
    mime: item.mime || undefined,
    size: item.totalBytes > 0 ? item.totalBytes : undefined,
    inline: false,
  });
}

function joinPath(dir, rel) {
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
  return `${dir.replace(/[\\/]+$/, '')}${sep}${sep === '\\' ? rel.replaceAll('/', '\\') : rel}`;
}

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
    r = stateOf(env.sessionId).resolve({ name: 'Upload', args });
  } catch (err) {
    const why = unavailable.get(env.sessionId);
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
  const st = stateOf(env.sessionId);
  let r;
  try { r = st.resolve({ name: 'Download', args }); } catch (err) { return refused(err); }
  try {
    const saved = await workspace.saveFromUrl(r.filename, r.url);
    return { text: `saved ${saved.path} (${formatSize(saved.size)}, ${saved.mime}) into the workspace` };
  } catch (err) {
    // Keep the download pending so the model can try another name.
    if (err.code === 'FILE_EXISTS' || err.code === 'INVALID_NAME') st.downloadIntercepted({ url: r.url, mime: r.mime, size: r.size });
    let hint = err.code === 'FILE_EXISTS' ? '; choose another name' : '';
    if (err.code === 'DOWNLOAD_FAILED') {
      // The worker fetches with the page's cookies, which needs access to that site.
      const origin = new URL(r.url).origin;
      const granted = await chrome.permissions.contains({ origins: [`${origin}/*`] }).catch(() => true);
      if (!granted) hint = `; the extension has no access to ${origin}, so it cannot fetch the file (tell the user: CallUser)`;
    }
    return { text: `Download(filename=${JSON.stringify(r.filename)}) failed: ${err.message}${hint}`, error: true };
  }
}

/** Wires the interception hooks, the actions and the pages' host port. Called from worker.js init(). */
export function initTransfers() {
  // A closed panel's session never comes back: forget what it held.
  onSessionEnd((sessionId) => {
    states.delete(sessionId);
    attachedTabs.delete(sessionId);
    unavailable.delete(sessionId);
  });
  onAttach(async ({ sessionId, tabId }) => {
    attachedTabs.set(sessionId, tabId);
    await cdp(sessionId, 'Page.setInterceptFileChooserDialog', { enabled: true }).catch(() => {});
    await cdp(sessionId, 'Fetch.enable', { patterns: [{ resourceType: 'Document', requestStage: 'Response' }] }).catch(() => {});
  });
  onCdpEvent(({ sessionId, method, params }) => {
    if (method === 'Page.fileChooserOpened') onChooser(sessionId, params);
    else if (method === 'Fetch.requestPaused') onDocumentPaused(sessionId, params);
  });
  chrome.downloads?.onCreated?.addListener((item) => { onDownloadCreated(item).catch(() => {}); });
  registerAction('Upload', (args, env) => uploadAction(args, env));
  registerAction('Download', downloadAction);
  const origin = chrome.runtime.getURL('');
  chrome.runtime.onConnect.addListener((port) => {
    if (port.name !== PORT_NAME) return;
    const trusted = port.sender?.id === chrome.runtime.id && String(port.sender?.url || '').startsWith(origin);
    serveProxiedPort(port, { request: hostRequest, trusted });
  });
}
