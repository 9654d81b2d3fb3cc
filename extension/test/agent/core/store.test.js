import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IDBFactory } from 'fake-indexeddb';
import { openConversationStore, stripImages, titleFrom, TITLE_MAX } from '../../../agent/core/conversation_store.js';

// Each test gets a fresh in-memory IndexedDB, a clock it controls and predictable ids.
async function fresh() {
  let t = 1000;
  let n = 0;
  const indexedDB = new IDBFactory();
  const deps = { indexedDB, now: () => (t += 10), newId: () => `c${++n}` };
  const store = await openConversationStore(deps);
  return { store, indexedDB, deps, reopen: () => openConversationStore(deps) };
}

test('a conversation keeps its records in append order with sequence numbers', async () => {
  const { store } = await fresh();
  const conv = await store.create();
  await store.append(conv.id, { kind: 'task', text: 'Find the cheapest flight' });
  await store.append(conv.id, { kind: 'analysis', step: 1, text: 'I see a search form' });
  await store.append(conv.id, { kind: 'action', step: 1, text: 'Click(point=(10,20))', usage: { prompt_tokens: 1200 } });
  await store.append(conv.id, { kind: 'result', step: 1, text: 'clicked the Search button' });
  const records = await store.records(conv.id);
  assert.deepEqual(records.map((r) => [r.seq, r.kind, r.text]), [
    [1, 'task', 'Find the cheapest flight'],
    [2, 'analysis', 'I see a search form'],
    [3, 'action', 'Click(point=(10,20))'],
    [4, 'result', 'clicked the Search button'],
  ]);
  assert.deepEqual(records[2].usage, { prompt_tokens: 1200 });
  const [listed] = await store.list();
  assert.equal(listed.title, 'Find the cheapest flight', 'the first task names the conversation');
  assert.equal(listed.records, 4);
});

test('records of different conversations never mix, and unknown kinds or conversations are refused', async () => {
  const { store } = await fresh();
  const a = await store.create();
  const b = await store.create();
  await store.append(a.id, { kind: 'task', text: 'A' });
  await store.append(b.id, { kind: 'task', text: 'B' });
  await store.append(a.id, { kind: 'note', text: 'A2' });
  assert.deepEqual((await store.records(a.id)).map((r) => r.text), ['A', 'A2']);
  assert.deepEqual((await store.records(b.id)).map((r) => [r.seq, r.text]), [[1, 'B']]);
  await assert.rejects(store.append(a.id, { kind: 'screenshot' }), /unknown record kind/);
  await assert.rejects(store.append('nope', { kind: 'task', text: 'x' }), /no conversation/);
});

test('screenshots and pasted images are never persisted', async () => {
  const { store, reopen } = await fresh();
  const conv = await store.create();
  const png = 'data:image/png;base64,iVBORw0KGgo=';
  await store.append(conv.id, {
    kind: 'task', text: 'Compare with this', images: [{ name: 'ref.png', mime: 'image/png', size: 8, dataUrl: png }],
  });
  await store.append(conv.id, {
    kind: 'result', step: 1, text: 'ok', observation: { url: 'https://a.test/', image: 'iVBORw0KGgo=', viewport: { width: 800, height: 600 } },
    message: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: png } }],
    bytes: new Uint8Array([1, 2, 3]),
  });
  const other = await reopen();
  const records = await other.records(conv.id);
  const text = JSON.stringify(records);
  assert.ok(!text.includes('iVBORw0KGgo'), `image data stored: ${text}`);
  assert.deepEqual(records[0].images, [{ name: 'ref.png', mime: 'image/png', size: 8 }]);
  assert.deepEqual(records[1].observation, { url: 'https://a.test/', viewport: { width: 800, height: 600 } });
  assert.deepEqual(records[1].message, [{ type: 'text', text: 'hi' }, { type: 'image_omitted' }]);
  assert.equal(records[1].bytes, undefined);
});

test('the active conversation survives reopening, and New conversation starts clean', async () => {
  const { store, reopen } = await fresh();
  const first = await store.ensureActive();
  assert.equal(await store.activeId(), first.id);
  await store.append(first.id, { kind: 'task', text: 'one' });
  const again = await reopen();
  assert.equal((await again.ensureActive()).id, first.id, 'reopening the panel restores the active conversation');
  const second = await again.create();
  assert.equal(await again.activeId(), second.id);
  assert.deepEqual(await again.records(second.id), []);
  await again.setActive(first.id);
  assert.equal(await again.activeId(), first.id, 'the selector restores an older conversation');
  await assert.rejects(again.setActive('missing'), /no conversation/);
});

test('list is ordered by last update', async () => {
  const { store } = await fresh();
  const a = await store.create({ title: 'alpha' });
  const b = await store.create({ title: 'beta' });
  await store.append(a.id, { kind: 'note', text: 'touch' });
  assert.deepEqual((await store.list()).map((c) => c.title), ['alpha', 'beta']);
  await store.append(b.id, { kind: 'task', text: 'does not rename a titled conversation' });
  assert.deepEqual((await store.list()).map((c) => c.title), ['beta', 'alpha']);
  await store.rename(a.id, 'renamed');
  assert.equal((await store.get(a.id)).title, 'renamed');
});

test('delete removes the conversation and its records and clears the active pointer', async () => {
  const { store } = await fresh();
  const keep = await store.create();
  await store.append(keep.id, { kind: 'task', text: 'keep me' });
  const gone = await store.create();
  await store.append(gone.id, { kind: 'task', text: 'delete me' });
  await store.append(gone.id, { kind: 'result', step: 1, text: 'x' });
  await store.delete(gone.id);
  assert.equal(await store.get(gone.id), null);
  assert.deepEqual(await store.records(gone.id), []);
  assert.equal(await store.activeId(), null);
  assert.deepEqual((await store.list()).map((c) => c.id), [keep.id]);
  assert.deepEqual((await store.records(keep.id)).map((r) => r.text), ['keep me']);
  const next = await store.ensureActive();
  assert.notEqual(next.id, gone.id);
});

test('export holds the transcript, the reference images and the kept screenshots, and names the steps left out', async () => {
  const { store } = await fresh();
  const conv = await store.create();
  const task = await store.append(conv.id, { kind: 'task', text: 'export me', images: [{ name: 'ref.png', mime: 'image/png', size: 3 }] });
  await store.putReferenceImages(conv.id, task.seq, [{ name: 'ref.png', dataUrl: 'data:image/png;base64,AAEC' }]);
  for (let step = 1; step <= 4; step++) {
    await store.append(conv.id, { kind: 'action', step, text: 'Wait()' });
    await store.putScreenshot(conv.id, task.seq, step, { mime: 'image/jpeg', image: Buffer.from(`shot${step}`).toString('base64') }, { keep: 2 });
  }
  await store.append(conv.id, { kind: 'outcome', outcome: 'finished', text: 'done' });
  const out = await store.exportConversation(conv.id, { keepScreenshots: 2 });
  assert.equal(out.mimeType, 'application/json');
  assert.match(out.filename, /^gnosis-conversation-.*\.json$/);
  const parsed = JSON.parse(out.text);
  assert.equal(parsed.format, 'gnosis-agent-conversation');
  assert.deepEqual(parsed.records.map((r) => r.text), ['export me', 'Wait()', 'Wait()', 'Wait()', 'Wait()', 'done']);
  assert.deepEqual(parsed.referenceImages, [{ task: 1, name: 'ref.png', mime: 'image/png', dataUrl: 'data:image/png;base64,AAEC' }]);
  assert.deepEqual(parsed.screenshots, [3, 4].map((step) => ({ task: 1, step, mime: 'image/jpeg', dataUrl: `data:image/jpeg;base64,${Buffer.from(`shot${step}`).toString('base64')}` })));
  assert.deepEqual(parsed.omitted.screenshots, [{ task: 1, steps: [1, 2] }]);
  assert.match(parsed.omitted.note, /Screenshots of 2 step\(s\) are not included: the latest 2 screenshots of each task are kept/);
  const blob = new Blob([out.text], { type: out.mimeType });
  assert.equal(blob.size, new TextEncoder().encode(out.text).length);
  await assert.rejects(store.exportConversation('missing'), /no conversation/);
});

test('screenshots are kept per task up to the bound, reference images come back as attached, Delete removes both', async () => {
  const { store, reopen } = await fresh();
  const conv = await store.create();
  for (let step = 1; step <= 25; step++) await store.putScreenshot(conv.id, 1, step, { image: 'data:image/jpeg;base64,/9j/AA==' }, { keep: 20 });
  await store.putScreenshot(conv.id, 30, 1, { image: '/9j/AQ==' }, { keep: 20 });
  const shots = await (await reopen()).screenshots(conv.id);
  assert.deepEqual(shots.filter((x) => x.task === 1).map((x) => x.step), Array.from({ length: 20 }, (_, i) => i + 6));
  assert.deepEqual(shots.filter((x) => x.task === 30).map((x) => x.dataUrl), ['data:image/jpeg;base64,/9j/AQ==']);
  await store.putScreenshot(conv.id, 30, 2, { image: '/9j/AQ==' }, { keep: 0 });
  assert.equal((await store.screenshots(conv.id)).filter((x) => x.task === 30).length, 0, 'keep 0 keeps none');
  await store.putReferenceImages(conv.id, 1, [{ name: 'a.png', dataUrl: 'data:image/png;base64,iVBORw0KGgo=' }, { name: 'b.gif', mime: 'image/gif', dataUrl: 'data:image/gif;base64,R0lGOA==' }]);
  assert.deepEqual(await store.referenceImages(conv.id, 1), [
    { name: 'a.png', mime: 'image/png', size: 8, dataUrl: 'data:image/png;base64,iVBORw0KGgo=' },
    { name: 'b.gif', mime: 'image/gif', size: 4, dataUrl: 'data:image/gif;base64,R0lGOA==' },
  ]);
  assert.deepEqual(await store.referenceImages(conv.id, 2), []);
  await store.delete(conv.id);
  assert.deepEqual(await store.screenshots(conv.id), []);
  assert.deepEqual(await store.referenceImages(conv.id, 1), []);
});

test('a database of the first version opens with its conversations and gains the media store', async () => {
  const indexedDB = new IDBFactory();
  await new Promise((resolve, reject) => {
    const req = indexedDB.open('gnosis-agent', 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      db.createObjectStore('conversations', { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
      db.createObjectStore('records', { keyPath: ['conversationId', 'seq'] }).createIndex('conversationId', 'conversationId');
      db.createObjectStore('meta');
      req.transaction.objectStore('conversations').add({ id: 'old', title: 'Old', titled: true, createdAt: 1, updatedAt: 1, nextSeq: 1, records: 0 });
    };
    req.onsuccess = () => { req.result.close(); resolve(); };
    req.onerror = () => reject(req.error);
  });
  const store = await openConversationStore({ indexedDB });
  assert.equal((await store.get('old')).title, 'Old');
  await store.putScreenshot('old', 1, 1, { image: '/9j/' });
  assert.equal((await store.screenshots('old')).length, 1);
});

test('stripImages and titleFrom', () => {
  assert.deepEqual(stripImages({ a: 'data:image/png;base64,xx', b: ['x', 'data:image/jpeg;base64,yy'], screenshot: { w: 1 } }), { b: ['x'] });
  assert.equal(stripImages('plain'), 'plain');
  assert.equal(titleFrom('  many\n spaces  '), 'many spaces');
  assert.equal(titleFrom(''), 'New conversation');
  const long = titleFrom('x'.repeat(200));
  assert.equal(long.length, TITLE_MAX);
  assert.ok(long.endsWith('…'));
});
