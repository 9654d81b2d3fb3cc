// Upload and Download for the browser agent: the path rules (mirroring the
// host's host/workspace package so both sides refuse the same names), the
// workspace inventory as the model reads it, and the state machine that
// links a page event to the model's next action:
//
//   file chooser opened (Page.fileChooserOpened, intercepted)
//     → the next request lists the workspace inventory
//     → Upload(file='relative/path') resolves to one listed file
//   download intercepted (or an inline document such as a PDF, or a file
//   the page built itself: blob: or data: URL, with its bytes)
//     → the next request says so
//     → Download(filename='name.ext') resolves to {url, filename}
//
// Pure module: no chrome.* calls; the inventory comes from an injected
// function (workspace_client.js list()).

import { CodedError } from '../../shared/core/coded_error.js';
import { formatBytes } from '../../shared/core/images.js';
import { CODES } from '../../shared/core/codes.js';

const MiB = 1024 * 1024;
/** Largest file an upload supplies (the host enforces the same). */
export const UPLOAD_MAX_BYTES = 64 * MiB;
/** Largest file a download saves (the host enforces the same). */
export const DOWNLOAD_MAX_BYTES = 256 * MiB;
/** Most inventory lines shown to the model. */
export const INVENTORY_MAX_LINES = 200;
/** Prefix of the host's temporary download files (never a valid name). */
export const TEMP_PREFIX = '.gnosis-download-';

/** Stable codes of TransferError (host codes FILE_EXISTS, FILE_NOT_FOUND, FILE_TOO_LARGE pass through). */
export const TRANSFER_CODES = Object.freeze({
  INVALID_NAME: 'INVALID_NAME',
  INVALID_PATH: 'INVALID_PATH',
  NOT_IN_INVENTORY: 'NOT_IN_INVENTORY',
  FILE_TOO_LARGE: CODES.FILE_TOO_LARGE,
  FILE_EXISTS: CODES.FILE_EXISTS,
  NO_CHOOSER: 'NO_CHOOSER',
  NO_DOWNLOAD: 'NO_DOWNLOAD',
});

/** A refused transfer: .code is one of TRANSFER_CODES; the message is written for the model and the user. */
export class TransferError extends CodedError {}

const RESERVED = new Set(['CON', 'PRN', 'AUX', 'NUL', 'CONIN$', 'CONOUT$']);

function reservedOnWindows(name) {
  let base = name.toUpperCase();
  const dot = base.indexOf('.');
  if (dot >= 0) base = base.slice(0, dot);
  base = base.replace(/ +$/, '');
  return RESERVED.has(base) || /^(COM|LPT)[0-9¹²³]$/.test(base);
}

// Bidi controls and zero-width characters: they make a name read differently than it is.
const INVISIBLE = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff]/;

/**
 * Why name is not acceptable as a download name, or '' when it is: one file
 * name, no folder, no '..', nothing Windows would reinterpret, ≤ 255 bytes.
 */
export function checkFileName(name) {
  if (typeof name !== 'string' || name === '') return 'file name is empty';
  if (new TextEncoder().encode(name).length > 255) return 'file name is longer than 255 bytes';
  if (name === '.' || name === '..') return "file name may not be '.' or '..'";
  if (/[/\\]/.test(name)) return 'file name may not contain a folder';
  if (/[<>:"|?*]/.test(name)) return 'file name may not contain any of < > : " | ? *';
  if (/[. ]$/.test(name)) return 'file name may not end with a dot or a space';
  if (/^[. ]/.test(name)) return 'file name may not start with a dot or a space';
  if (INVISIBLE.test(name)) return 'file name may not contain bidi controls or zero-width characters';
  if (name.startsWith(TEMP_PREFIX)) return 'file name is reserved';
  if (reservedOnWindows(name)) return 'file name is a reserved device name';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) return 'file name may not contain control characters';
  return '';
}

/**
 * Why p is not acceptable as a workspace path, or '' when it is: relative,
 * forward slashes, no empty, '.' or '..' segments.
 */
export function checkRelativePath(p) {
  if (typeof p !== 'string' || p === '') return 'path is empty';
  if (p.includes('\0')) return 'path is not valid text';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'absolute paths are not allowed';
  if (p.includes('\\')) return 'use forward slashes in workspace paths';
  for (const seg of p.split('/')) {
    if (seg === '..') return 'path leaves the workspace';
    if (seg === '' || seg === '.') return "path has an empty or '.' segment";
  }
  return '';
}

/** "1.2 MiB (1,234,567 bytes)"-style size for the model and the user. */
export function formatSize(n) {
  const bytes = `${n.toLocaleString('en-US')} byte${n === 1 ? '' : 's'}`;
  return n < 1024 ? bytes : `${formatBytes(n)} (${bytes})`;
}

/**
 * The inventory as the model reads it: one line per file, "relative path,
 * size, MIME type", with the Upload instruction. inventory is the reply of
 * workspace.list ({files: [{path, size, mime}], truncated}).
 */
export function formatInventory(inventory, { maxLines = INVENTORY_MAX_LINES } = {}) {
  const files = inventory?.files || [];
  if (!files.length) {
    return 'A file chooser is open, but the workspace folder is empty. Ask the user to put the file into the workspace (CallUser), then try again.';
  }
  const shown = files.slice(0, maxLines);
  const lines = shown.map((f) => `- ${f.path}, ${formatSize(f.size)}, ${f.mime || 'application/octet-stream'}${f.size > UPLOAD_MAX_BYTES ? ' (too large to upload)' : ''}`);
  const more = files.length - shown.length;
  if (more > 0 || inventory.truncated) lines.push(`- … ${more > 0 ? `${more} more file${more === 1 ? '' : 's'}` : 'more files'} not listed`);
  return [
    'A file chooser is open. Workspace files (relative path, size, MIME type):',
    ...lines,
    "To supply one, reply with Upload(file='relative/path') using a path exactly as listed.",
  ].join('\n');
}

/**
 * A safe name suggestion for an intercepted download, from the
 * Content-Disposition filename or the URL's last segment; '' if none is usable.
 */
export function suggestName(url, contentDisposition = '') {
  let name;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(contentDisposition);
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(contentDisposition);
  try {
    if (star) name = decodeURIComponent(star[1].trim());
    else if (plain) name = plain[1].trim();
    else name = decodeURIComponent(new URL(url).pathname.split('/').pop() || '');
  } catch {
    name = '';
  }
  name = name.replace(/[/\\]/g, '_').trim().replace(/^[. ]+/, '');
  return checkFileName(name) === '' ? name : '';
}

/**
 * Checks an Upload target against the rules and the inventory the model was
 * shown; returns the inventory entry.
 */
export function resolveUpload(path, inventory) {
  const bad = checkRelativePath(path);
  if (bad) throw new TransferError(TRANSFER_CODES.INVALID_PATH, `Upload(file=${JSON.stringify(path)}) refused: ${bad}.`);
  const entry = (inventory?.files || []).find((f) => f.path === path);
  if (!entry) throw new TransferError(TRANSFER_CODES.NOT_IN_INVENTORY, `Upload(file=${JSON.stringify(path)}) refused: that file is not in the workspace inventory; use a path exactly as listed.`);
  if (entry.size > UPLOAD_MAX_BYTES) {
    throw new TransferError(TRANSFER_CODES.FILE_TOO_LARGE, `Upload(file=${JSON.stringify(path)}) refused: the file is ${formatSize(entry.size)}; uploads are limited to 64 MiB.`);
  }
  return entry;
}

/**
 * Checks a Download name; existing (optional) is the current inventory, so
 * a clash is reported before any byte moves (the host refuses it anyway).
 */
export function validateDownloadName(filename, existing) {
  const bad = checkFileName(filename);
  if (bad) throw new TransferError(TRANSFER_CODES.INVALID_NAME, `Download(filename=${JSON.stringify(filename)}) refused: ${bad}. Use one file name such as 'report.pdf'.`);
  if ((existing?.files || []).some((f) => f.path === filename)) {
    throw new TransferError(TRANSFER_CODES.FILE_EXISTS, `Download(filename=${JSON.stringify(filename)}) refused: a file of that name already exists in the workspace; choose another name.`);
  }
  return filename;
}

/**
 * Why Download has nothing to save, from what happened to the last download:
 * one that could not be kept says why (clicking again starts it again), one
 * already saved says where; only when none was seen is the advice to click
 * the page's download control first.
 */
export function noDownloadMessage(last) {
  const name = last?.name ? ` ('${last.name}')` : '';
  if (last?.failed) return `Download refused: the page started a download${name}, but it could not be kept: ${last.reason}. Clicking its button again starts it again; if it fails again, tell the user (CallUser).`;
  if (last?.saved) return `Download refused: no download is waiting: the last one${name} was saved${last.step ? ` in step ${last.step}` : ''}${last.filename && last.filename !== last.name ? ` as '${last.filename}'` : ''}. To save another file, start its download on the page first.`;
  return 'Download refused: no download is waiting to be saved. Click the page\'s download link or its Export/Save button first; the next turn says when a download was intercepted.';
}

/**
 * The Upload/Download state of one task.
 * @returns {TransferState}
 */
export function createTransferState() {
  return new TransferState();
}

/** See createTransferState. */
export class TransferState {
  constructor() {
    this.reset();
  }

  /** Forgets any pending chooser and download (task start and end). */
  reset() {
    this._chooser = null;
    this._download = null;
    this._inventory = null;
    this._listed = false;
    this._last = null;
  }

  /**
   * A file chooser was intercepted (Page.fileChooserOpened params:
   * {frameId, mode: 'selectSingle'|'selectMultiple', backendNodeId}).
   * A new chooser replaces an older one; the inventory is listed afresh.
   */
  chooserOpened(chooser) {
    this._chooser = { ...chooser };
    this._inventory = null;
    this._listed = false;
  }

  /**
   * A download (or inline document) was intercepted:
   * {url, suggestedName?, mime?, size?, inline?, bytes?}. bytes (a
   * Uint8Array) holds a download the page built itself (blob: or data: URL),
   * read when it was intercepted because its URL cannot be fetched later.
   */
  downloadIntercepted(download) {
    const suggestedName = download.suggestedName && checkFileName(download.suggestedName) === '' ? download.suggestedName : suggestName(download.url);
    this._download = { ...download, suggestedName };
    this._last = null;
  }

  /**
   * A download the page started could not be kept ({suggestedName?, reason}):
   * Download then says so instead of asking for a click that already happened.
   */
  downloadFailed({ suggestedName = '', reason }) {
    this._last = { failed: true, name: suggestedName, reason: String(reason) };
  }

  /** Download saved the pending download as filename at step (what a later Download is told). */
  downloadSaved({ name = '', filename, step }) {
    this._last = { saved: true, name: name || filename, filename, step };
  }

  /** What is pending: {chooser, download} (copies, or null). */
  pending() {
    return { chooser: this._chooser && { ...this._chooser }, download: this._download && { ...this._download } };
  }

  /**
   * Lines to add to the next model request. With a chooser open, the
   * inventory is fetched with listInventory() once per chooser and kept for
   * resolving Upload; with a download pending, the model is told how to save it.
   * @param {{listInventory: () => Promise<{files: Array, truncated?: boolean}>}} deps
   */
  async requestNotes({ listInventory }) {
    const notes = [];
    if (this._chooser && !this._listed) {
      this._inventory = await listInventory();
      this._listed = true;
      notes.push(formatInventory(this._inventory));
    } else if (this._chooser) {
      notes.push('The file chooser is still open; reply with Upload(file=...) using a path from the inventory above.');
    }
    if (this._download) {
      const d = this._download;
      const what = [d.suggestedName && `suggested name '${d.suggestedName}'`, d.mime, Number.isFinite(d.size) && formatSize(d.size)].filter(Boolean).join(', ');
      notes.push(`A ${d.inline ? 'document' : 'download'} was intercepted${what ? ` (${what})` : ''} and has not been saved. To save it into the workspace, reply with Download(filename='name.ext'): one new file name, no folders.`);
    }
    return notes;
  }

  /**
   * Resolves a parsed Upload or Download action ({name, args}) against the
   * pending state and clears that state. Upload → {kind: 'upload', path,
   * entry, chooser}; Download → {kind: 'download', filename, url, mime?,
   * size?}. Throws TransferError when the action does not fit.
   */
  resolve(action) {
    if (action.name === 'Upload') {
      if (!this._chooser) throw new TransferError(TRANSFER_CODES.NO_CHOOSER, 'Upload refused: no file chooser is open. Click the page\'s file control first, then choose a file from the inventory.');
      if (!this._inventory) throw new TransferError(TRANSFER_CODES.NOT_IN_INVENTORY, 'Upload refused: the workspace inventory has not been shown yet; look at the next observation first.');
      const entry = resolveUpload(action.args.file, this._inventory);
      const chooser = this._chooser;
      this._chooser = null;
      this._listed = false;
      return { kind: 'upload', path: entry.path, entry, chooser };
    }
    if (action.name === 'Download') {
      if (!this._download) throw new TransferError(TRANSFER_CODES.NO_DOWNLOAD, noDownloadMessage(this._last));
      const filename = validateDownloadName(action.args.filename, this._inventory);
      const d = this._download;
      this._download = null;
      return { kind: 'download', filename, url: d.url, mime: d.mime, size: d.size, suggestedName: d.suggestedName, ...(d.referrer ? { referrer: d.referrer } : {}), ...(d.bytes ? { bytes: d.bytes } : {}) };
    }
    throw new TransferError(TRANSFER_CODES.INVALID_NAME, `${action.name} is not a file transfer action`);
  }
}
