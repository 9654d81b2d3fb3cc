// Conversations of the browser agent, kept in IndexedDB.
//
// Every conversation has an id; its records (the user's task, the model's
// analysis, each action and its result, CallUser replies, outcomes, compacted
// summaries) are appended as they happen, each with a per-conversation
// sequence number, so the Side Panel can restore a transcript exactly after
// it is reopened. Records hold text only: image data is stripped from every
// record before it is stored. Images live in their own object store (media):
// each task's reference images, and the latest screenshots of each task (a
// bounded number, the rest deleted as new ones come), so a reopened panel
// shows the images and an export is a faithful record that names what it
// left out.
//
// Pure module: the IndexedDB factory is injected (the extension passes
// globalThis.indexedDB, tests fake-indexeddb), so it makes no chrome.* call.

import { base64ToBytes, bytesToBase64 } from '../../shared/core/base64.js';

const DB_VERSION = 2;
const CONVERSATIONS = 'conversations';
const RECORDS = 'records';
const META = 'meta';
const MEDIA = 'media';
const ACTIVE_KEY = 'activeConversation';

/** Record kinds the agent appends (free-form fields besides kind/text). */
export const RECORD_KINDS = Object.freeze([
  'task', // {text, images?: [{name, mime, size}]} a task given by the user (the images themselves: putReferenceImages)
  'user', // {text} the user's answer after CallUser
  'analysis', // {step, text} the model's reasoning for a step
  'action', // {step, text, usage?} the action the model chose (and the request's usage)
  'result', // {step, text} what executing the action did
  'outcome', // {outcome, text} finished / call_user / stopped / step_limit / error
  'summary', // {text, upto} compacted summary of every record with seq <= upto
  'note', // {text} anything else worth keeping (TakeNote, warnings)
]);

/** Longest title derived from a task. */
export const TITLE_MAX = 60;

/** Keys whose string values are image data and never stored. */
const IMAGE_KEYS = new Set(['image', 'screenshot', 'dataUrl', 'data_url', 'base64']);

/**
 * Returns a deep copy of value with image data removed: fields named like
 * image payloads, any data: URL string, and OpenAI image_url parts (replaced
 * by {type:'image_omitted'}). Binary values (ArrayBuffer, typed arrays, Blob)
 * are dropped too.
 */
export function stripImages(value) {
  if (typeof value === 'string') return /^data:[^,]*;base64,/i.test(value) ? undefined : value;
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return undefined;
  if (typeof Blob !== 'undefined' && value instanceof Blob) return undefined;
  if (Array.isArray(value)) {
    const out = [];
    for (const v of value) {
      const s = stripImages(v);
      if (s !== undefined) out.push(s);
    }
    return out;
  }
  if (value.type === 'image_url') return { type: 'image_omitted' };
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    if (IMAGE_KEYS.has(k) && (typeof v === 'string' || (v && typeof v === 'object'))) continue;
    const s = stripImages(v);
    if (s !== undefined) out[k] = s;
  }
  return out;
}

/** Derives a conversation title from a task text. */
export function titleFrom(text) {
  const flat = String(text || '').replace(/\s+/g, ' ').trim();
  if (!flat) return 'New conversation';
  return flat.length > TITLE_MAX ? `${flat.slice(0, TITLE_MAX - 1)}…` : flat;
}

function promisify(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error('transaction aborted'));
  });
}

/**
 * Opens (creating if needed) the store.
 * @param {{indexedDB: IDBFactory, name?: string, now?: () => number, newId?: () => string}} deps
 * @returns {Promise<ConversationStore>}
 */
export async function openConversationStore({ indexedDB, name = 'gnosis-agent', now = () => Date.now(), newId } = {}) {
  if (!indexedDB) throw new Error('openConversationStore needs an indexedDB factory');
  const req = indexedDB.open(name, DB_VERSION);
  req.onupgradeneeded = (ev) => {
    const db = req.result;
    if (ev.oldVersion < 1) {
      const convs = db.createObjectStore(CONVERSATIONS, { keyPath: 'id' });
      convs.createIndex('updatedAt', 'updatedAt');
      const records = db.createObjectStore(RECORDS, { keyPath: ['conversationId', 'seq'] });
      records.createIndex('conversationId', 'conversationId');
      db.createObjectStore(META);
    }
    if (ev.oldVersion < 2) {
      // {conversationId, kind: 'reference'|'screenshot', task (the task record's seq), n (image index or step), name?, mime, bytes, at}
      const media = db.createObjectStore(MEDIA, { keyPath: ['conversationId', 'task', 'kind', 'n'] });
      media.createIndex('conversationId', 'conversationId');
    }
  };
  const db = await promisify(req);
  return new ConversationStore(db, { now, newId: newId || (() => globalThis.crypto.randomUUID()) });
}

/** Conversations and their records; see openConversationStore. */
export class ConversationStore {
  constructor(db, { now, newId }) {
    this._db = db;
    this._now = now;
    this._newId = newId;
  }

  /** Starts a conversation and makes it the active one. */
  async create({ title } = {}) {
    const at = this._now();
    const conv = { id: this._newId(), title: title ? titleFrom(title) : 'New conversation', titled: Boolean(title), createdAt: at, updatedAt: at, nextSeq: 1, records: 0 };
    const tx = this._db.transaction([CONVERSATIONS, META], 'readwrite');
    tx.objectStore(CONVERSATIONS).add(conv);
    tx.objectStore(META).put(conv.id, ACTIVE_KEY);
    await done(tx);
    return publicConv(conv);
  }

  /** All conversations, most recently updated first. */
  async list() {
    const tx = this._db.transaction(CONVERSATIONS, 'readonly');
    const all = await promisify(tx.objectStore(CONVERSATIONS).getAll());
    return all.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : 1)).map(publicConv);
  }

  /** One conversation, or null. */
  async get(id) {
    const tx = this._db.transaction(CONVERSATIONS, 'readonly');
    const conv = await promisify(tx.objectStore(CONVERSATIONS).get(id));
    return conv ? publicConv(conv) : null;
  }

  /**
   * Appends a record (image data stripped) and returns it as stored, with
   * seq and at. The first task names an untitled conversation.
   */
  async append(conversationId, record) {
    if (!record || !RECORD_KINDS.includes(record.kind)) throw new Error(`unknown record kind ${JSON.stringify(record?.kind)}`);
    const tx = this._db.transaction([CONVERSATIONS, RECORDS], 'readwrite');
    const convs = tx.objectStore(CONVERSATIONS);
    const conv = await promisify(convs.get(conversationId));
    if (!conv) {
      tx.abort();
      await done(tx).catch(() => {});
      throw new Error(`no conversation ${conversationId}`);
    }
    const stored = { ...stripImages(record), conversationId, seq: conv.nextSeq, at: this._now() };
    conv.nextSeq += 1;
    conv.records += 1;
    conv.updatedAt = stored.at;
    if (!conv.titled && record.kind === 'task') {
      conv.title = titleFrom(record.text);
      conv.titled = true;
    }
    convs.put(conv);
    tx.objectStore(RECORDS).add(stored);
    await done(tx);
    return stored;
  }

  /** The records of a conversation in the order they were appended. */
  async records(conversationId) {
    const tx = this._db.transaction(RECORDS, 'readonly');
    const all = await promisify(tx.objectStore(RECORDS).index('conversationId').getAll(conversationId));
    return all.sort((a, b) => a.seq - b.seq);
  }

  /** Renames a conversation. */
  async rename(id, title) {
    const tx = this._db.transaction(CONVERSATIONS, 'readwrite');
    const store = tx.objectStore(CONVERSATIONS);
    const conv = await promisify(store.get(id));
    if (!conv) throw new Error(`no conversation ${id}`);
    conv.title = titleFrom(title);
    conv.titled = true;
    store.put(conv);
    await done(tx);
    return publicConv(conv);
  }

  /**
   * Keeps a task's reference images ({name, mime, dataUrl}, already checked
   * against the limits) under the task record's seq.
   */
  async putReferenceImages(conversationId, task, images) {
    if (!images?.length) return;
    const tx = this._db.transaction(MEDIA, 'readwrite');
    const media = tx.objectStore(MEDIA);
    images.forEach((img, n) => {
      const { mime, bytes } = fromDataUrl(img.dataUrl, img.mime);
      media.put({ conversationId, task, kind: 'reference', n, name: img.name || `image ${n + 1}`, mime, bytes, at: this._now() });
    });
    await done(tx);
  }

  /** A task's reference images as {name, mime, size, dataUrl}, in the order attached. */
  async referenceImages(conversationId, task) {
    return (await this._media(conversationId, task, 'reference')).map((m) => ({ name: m.name, mime: m.mime, size: m.bytes.byteLength, dataUrl: toDataUrl(m) }));
  }

  /**
   * Keeps the screenshot of one step of a task ({mime, image: base64 or data
   * URL}) and deletes the task's older screenshots beyond `keep` (0 keeps none).
   */
  async putScreenshot(conversationId, task, step, shot, { keep = 20 } = {}) {
    const tx = this._db.transaction(MEDIA, 'readwrite');
    const media = tx.objectStore(MEDIA);
    if (keep > 0) {
      const { mime, bytes } = fromDataUrl(shot.image, shot.mime);
      media.put({ conversationId, task, kind: 'screenshot', n: step, mime, bytes, at: this._now() });
    }
    const keys = (await promisify(media.index('conversationId').getAllKeys(conversationId))).filter((k) => k[1] === task && k[2] === 'screenshot');
    const have = keep > 0 && !keys.some((k) => k[3] === step) ? [...keys, [conversationId, task, 'screenshot', step]] : keys;
    const old = have.sort((a, b) => a[3] - b[3]).slice(0, Math.max(0, have.length - keep));
    for (const k of old) media.delete(k);
    await done(tx);
  }

  /** Every screenshot kept for a conversation as {task, step, mime, dataUrl}, in task and step order. */
  async screenshots(conversationId) {
    return (await this._media(conversationId, undefined, 'screenshot')).map((m) => ({ task: m.task, step: m.n, mime: m.mime, dataUrl: toDataUrl(m) }));
  }

  async _media(conversationId, task, kind) {
    const tx = this._db.transaction(MEDIA, 'readonly');
    const all = await promisify(tx.objectStore(MEDIA).index('conversationId').getAll(conversationId));
    return all.filter((m) => m.kind === kind && (task === undefined || m.task === task)).sort((a, b) => a.task - b.task || a.n - b.n);
  }

  /** Deletes a conversation, its records and images; clears the active pointer if it pointed there. */
  async delete(id) {
    const tx = this._db.transaction([CONVERSATIONS, RECORDS, META, MEDIA], 'readwrite');
    tx.objectStore(CONVERSATIONS).delete(id);
    const records = tx.objectStore(RECORDS);
    const keys = await promisify(records.index('conversationId').getAllKeys(id));
    for (const k of keys) records.delete(k);
    const media = tx.objectStore(MEDIA);
    for (const k of await promisify(media.index('conversationId').getAllKeys(id))) media.delete(k);
    const meta = tx.objectStore(META);
    const active = await promisify(meta.get(ACTIVE_KEY));
    if (active === id) meta.delete(ACTIVE_KEY);
    await done(tx);
  }

  /** The active conversation's id, or null. */
  async activeId() {
    const tx = this._db.transaction([META, CONVERSATIONS], 'readonly');
    const id = await promisify(tx.objectStore(META).get(ACTIVE_KEY));
    if (id === undefined) return null;
    const conv = await promisify(tx.objectStore(CONVERSATIONS).get(id));
    return conv ? id : null;
  }

  /** Makes an existing conversation the active one (restore from the selector). */
  async setActive(id) {
    const tx = this._db.transaction([META, CONVERSATIONS], 'readwrite');
    const conv = await promisify(tx.objectStore(CONVERSATIONS).get(id));
    if (!conv) {
      tx.abort();
      await done(tx).catch(() => {});
      throw new Error(`no conversation ${id}`);
    }
    tx.objectStore(META).put(id, ACTIVE_KEY);
    await done(tx);
  }

  /** The active conversation, creating one when there is none (first run, after Delete). */
  async ensureActive() {
    const id = await this.activeId();
    if (id) return this.get(id);
    return this.create();
  }

  /**
   * A conversation as a downloadable file: the stored transcript, each
   * task's reference images, the screenshots kept in storage, and what was
   * left out: `omitted.screenshots` lists, per task, the steps whose
   * screenshot is no longer kept (only the latest `keepScreenshots` of a task
   * are).
   * @param {string} id
   * @param {{keepScreenshots?: number}} [opts] the setting in force, named in the file
   * @returns {Promise<{filename: string, mimeType: string, text: string, data: object}>}
   *   Blob-ready: new Blob([x.text], {type: x.mimeType}).
   */
  async exportConversation(id, { keepScreenshots } = {}) {
    const conv = await this.get(id);
    if (!conv) throw new Error(`no conversation ${id}`);
    const records = (await this.records(id)).map((r) => withoutKey(r, 'conversationId'));
    const screenshots = await this.screenshots(id);
    const references = (await this._media(id, undefined, 'reference')).map((m) => ({ task: m.task, name: m.name, mime: m.mime, dataUrl: toDataUrl(m) }));
    const kept = new Set(screenshots.map((s) => `${s.task}:${s.step}`));
    const missing = [];
    let task = 0;
    const seen = new Set();
    for (const r of records) {
      if (r.kind === 'task') task = r.seq;
      if (r.kind !== 'action' || seen.has(`${task}:${r.step}`)) continue;
      seen.add(`${task}:${r.step}`);
      if (!kept.has(`${task}:${r.step}`)) {
        const last = missing.at(-1);
        if (last?.task === task) last.steps.push(r.step);
        else missing.push({ task, steps: [r.step] });
      }
    }
    const policy = Number.isInteger(keepScreenshots) ? `the latest ${keepScreenshots} screenshots of each task are kept` : 'the latest screenshots of each task are kept';
    const data = {
      format: 'gnosis-agent-conversation',
      version: 2,
      exportedAt: new Date(this._now()).toISOString(),
      conversation: conv,
      records,
      referenceImages: references,
      screenshots,
      omitted: {
        screenshots: missing,
        note: missing.length
          ? `Screenshots of ${missing.reduce((n, m) => n + m.steps.length, 0)} step(s) are not included: ${policy}, older ones are deleted.`
          : `Every step's screenshot is included (${policy}).`,
      },
    };
    const stamp = new Date(this._now()).toISOString().replace(/[:.]/g, '-');
    return { filename: `gnosis-conversation-${stamp}.json`, mimeType: 'application/json', text: JSON.stringify(data, null, 2), data };
  }

  /** Closes the database connection. */
  close() {
    this._db.close();
  }
}

function fromDataUrl(image, mime) {
  const m = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(image);
  return { mime: (m && m[1]) || mime || 'image/jpeg', bytes: base64ToBytes(m ? m[3] : image) };
}

function toDataUrl(m) {
  const bytes = m.bytes instanceof Uint8Array ? m.bytes : new Uint8Array(m.bytes);
  return `data:${m.mime};base64,${bytesToBase64(bytes)}`;
}

function publicConv(c) {
  return { id: c.id, title: c.title, createdAt: c.createdAt, updatedAt: c.updatedAt, records: c.records };
}

/** A shallow copy of o without key. */
function withoutKey(o, key) {
  const copy = { ...o };
  delete copy[key];
  return copy;
}
