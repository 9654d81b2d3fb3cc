// The host's workspace folder as the agent sees it: a thin client over the
// workspace.* methods of gnosis-host (docs/host-methods.md).
//
// Uploads read a file in pieces (workspace.read); downloads stream a
// response body into workspace.create / append / commit in pieces of at
// most 8 MiB, and abort (removing the temporary file) on any error or Stop,
// so a partial download never appears under its name.
//
// Pure module: request is injected, with the native client's shape
// (host.request(method, params, {timeoutMs, onEvent, signal}) → Promise of
// the reply, {ok: true, ...} or {ok: false, code, message}).

import { CodedError } from '../../shared/core/coded_error.js';
import { CODES, TRANSPORT_CODES } from '../../shared/core/codes.js';
import { base64ToBytes, bytesToBase64 } from '../../shared/core/base64.js';
import { METHODS } from '../../shared/core/methods.js';
import { DOWNLOAD_MAX_BYTES } from './file_transfer.js';

const MiB = 1024 * 1024;
/** Largest piece sent in one workspace.append (before base64). */
export const APPEND_PIECE_BYTES = 8 * MiB;
/** Largest piece asked for in one workspace.read. */
export const READ_PIECE_BYTES = 4 * MiB;

/** The code of WorkspaceError this module adds to the wire's and the transport's. */
export const WORKSPACE_CODES = Object.freeze({
  /** The download's own URL failed in saveFromUrl. */
  DOWNLOAD_FAILED: 'DOWNLOAD_FAILED',
});

/**
 * A failed workspace call: .code is the host's error code (FILE_EXISTS,
 * NOT_CONFIGURED, …), a transport code, CANCELLED, or DOWNLOAD_FAILED (the
 * download's own URL failed in saveFromUrl).
 */
export class WorkspaceError extends CodedError {}

async function* chunksOf(source) {
  if (source == null) return;
  if (source instanceof Uint8Array) { yield source; return; }
  if (source instanceof ArrayBuffer) { yield new Uint8Array(source); return; }
  if (typeof source.getReader === 'function') {
    const reader = source.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        yield value instanceof Uint8Array ? value : new Uint8Array(value);
      }
    } finally {
      reader.releaseLock?.();
    }
  }
  if (typeof source[Symbol.asyncIterator] === 'function' || typeof source[Symbol.iterator] === 'function') {
    for await (const c of source) yield c instanceof Uint8Array ? c : new Uint8Array(c);
    return;
  }
  throw new TypeError('expected bytes, a ReadableStream or an (async) iterable of bytes');
}

/**
 * Creates the client.
 * @param {{request: (method: string, params?: object, opts?: object) => Promise<object>, timeoutMs?: number}} deps
 */
export function createWorkspaceClient({ request, timeoutMs = 60000 }) {
  async function call(method, params, signal) {
    let reply;
    try {
      reply = await request(method, params, { timeoutMs, signal });
    } catch (err) {
      throw new WorkspaceError(err?.code || TRANSPORT_CODES.HOST_ERROR, err?.advice ? `${err.message}. ${err.advice}` : String(err?.message || err));
    }
    if (!reply || reply.ok !== true) throw new WorkspaceError(reply?.code || TRANSPORT_CODES.HOST_ERROR, reply?.message || `${method} failed`);
    return reply;
  }

  const client = {
    /** {configured, dir?, freeBytes?, maxUploadBytes, maxDownloadBytes, error?} */
    info: ({ signal } = {}) => call(METHODS.WORKSPACE_INFO, {}, signal),

    /** The inventory {files: [{path, size, mime}], truncated}. */
    async list({ signal } = {}) {
      const r = await call(METHODS.WORKSPACE_LIST, {}, signal);
      return { files: r.files || [], truncated: Boolean(r.truncated) };
    },

    /**
     * Reads a whole workspace file for an upload.
     * @returns {Promise<{path: string, bytes: Uint8Array, size: number, mime: string}>}
     */
    async readFile(path, { signal, onProgress, pieceBytes = READ_PIECE_BYTES } = {}) {
      const parts = [];
      let offset = 0;
      let size;
      let mime = 'application/octet-stream';
      for (;;) {
        const r = await call(METHODS.WORKSPACE_READ, { path, offset, length: pieceBytes }, signal);
        const piece = base64ToBytes(r.data);
        size = r.size;
        mime = r.mime || mime;
        parts.push(piece);
        offset += piece.length;
        onProgress?.({ done: offset, total: size });
        if (r.eof || piece.length === 0) break;
      }
      if (offset !== size) throw new WorkspaceError(CODES.EXECUTION_ERROR, `${path} changed while it was read (${offset} of ${size} bytes)`);
      const bytes = new Uint8Array(offset);
      let at = 0;
      for (const p of parts) { bytes.set(p, at); at += p.length; }
      return { path, bytes, size, mime };
    },

    /**
     * Saves bytes (a Uint8Array, ArrayBuffer, ReadableStream such as a
     * fetch Response body, or an (async) iterable of chunks) as a new file
     * called name. Never overwrites: FILE_EXISTS if the name is taken.
     * origin.url and origin.referrer say where the file came from (the host
     * records them in the file's Mark-of-the-Web on Windows).
     * @returns {Promise<{path: string, size: number}>}
     */
    async save(name, source, { signal, onProgress, maxBytes = DOWNLOAD_MAX_BYTES, pieceBytes = APPEND_PIECE_BYTES, source: origin } = {}) {
      const params = { name };
      if (typeof origin?.url === 'string' && origin.url) params.url = origin.url;
      if (typeof origin?.referrer === 'string' && origin.referrer) params.referrer = origin.referrer;
      const { handle } = await call(METHODS.WORKSPACE_CREATE, params, signal);
      let written = 0;
      try {
        const buf = new Uint8Array(pieceBytes); // reused: each piece is encoded before its request is sent
        let fill = 0;
        const flush = async () => {
          if (!fill) return;
          await call(METHODS.WORKSPACE_APPEND, { handle, data: bytesToBase64(buf.subarray(0, fill)) }, signal);
          written += fill;
          fill = 0;
          onProgress?.({ done: written });
        };
        for await (const chunk of chunksOf(source)) {
          if (signal?.aborted) throw new WorkspaceError(CODES.CANCELLED, 'download stopped');
          if (written + fill + chunk.length > maxBytes) {
            throw new WorkspaceError(CODES.FILE_TOO_LARGE, `the download is larger than ${maxBytes / MiB} MiB and was discarded`);
          }
          let at = 0;
          while (at < chunk.length) {
            const n = Math.min(chunk.length - at, pieceBytes - fill);
            buf.set(chunk.subarray(at, at + n), fill);
            fill += n;
            at += n;
            if (fill === pieceBytes) await flush();
          }
        }
        await flush();
        const r = await call(METHODS.WORKSPACE_COMMIT, { handle }, signal);
        return { path: r.path, size: r.size };
      } catch (err) {
        // Best effort: the host also discards it when the session ends.
        await request(METHODS.WORKSPACE_ABORT, { handle }, { timeoutMs }).catch(() => {});
        throw err instanceof WorkspaceError ? err : new WorkspaceError(err?.code || CODES.EXECUTION_ERROR, String(err?.message || err));
      }
    },

    /**
     * Downloads url (with the browser's cookies, as the page would) straight
     * into the workspace as name: the Download action after an intercepted
     * download. A declared Content-Length above the limit fails before any
     * file is created.
     * @param {{fetch?: Function, signal?: AbortSignal, onProgress?: Function, maxBytes?: number}} [opts]
     * @returns {Promise<{path: string, size: number, mime: string}>}
     */
    async saveFromUrl(name, url, { fetch = (...a) => globalThis.fetch(...a), signal, onProgress, maxBytes = DOWNLOAD_MAX_BYTES, source = { url } } = {}) {
      let res;
      try {
        res = await fetch(url, { credentials: 'include', signal });
      } catch (err) {
        if (signal?.aborted) throw new WorkspaceError(CODES.CANCELLED, 'download stopped');
        throw new WorkspaceError(WORKSPACE_CODES.DOWNLOAD_FAILED, `the download could not be fetched: ${err?.message || err}`);
      }
      if (!res.ok) {
        await res.body?.cancel?.().catch(() => {});
        throw new WorkspaceError(WORKSPACE_CODES.DOWNLOAD_FAILED, `the download answered HTTP ${res.status}`);
      }
      const declared = Number(res.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > maxBytes) {
        await res.body?.cancel?.().catch(() => {});
        throw new WorkspaceError(CODES.FILE_TOO_LARGE, `the download is ${declared} bytes; downloads are limited to ${maxBytes / MiB} MiB`);
      }
      const saved = await client.save(name, res.body ?? new Uint8Array(await res.arrayBuffer()), { signal, onProgress, maxBytes, source });
      return { ...saved, mime: (res.headers.get('content-type') || 'application/octet-stream').split(';')[0].trim() };
    },
  };
  return client;
}
