import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { startRealHost } from '../../shared/real_host.js';
import { createWorkspaceClient, WorkspaceError } from '../../../agent/core/workspace_client.js';
import {
  checkFileName, checkRelativePath, createTransferState, DOWNLOAD_MAX_BYTES, formatInventory, formatSize, resolveUpload,
  suggestName, TRANSFER_CODES, UPLOAD_MAX_BYTES, validateDownloadName,
} from '../../../agent/core/file_transfer.js';

// The same table the host's Go tests read: both sides agree on every name.
const shared = JSON.parse(readFileSync(new URL('../../../../host/workspace/testdata/names.json', import.meta.url), 'utf8'));

test('download names and workspace paths follow the host rules exactly', () => {
  for (const n of shared.fileName.accept) assert.equal(checkFileName(n), '', `file name ${JSON.stringify(n)}`);
  for (const n of shared.fileName.refuse) assert.notEqual(checkFileName(n), '', `file name ${JSON.stringify(n)}`);
  for (const p of shared.path.accept) assert.equal(checkRelativePath(p), '', `path ${JSON.stringify(p)}`);
  for (const p of shared.path.refuse) assert.notEqual(checkRelativePath(p), '', `path ${JSON.stringify(p)}`);
  assert.equal(checkFileName('n'.repeat(256)), 'file name is longer than 255 bytes');
  assert.equal(checkFileName('é'.repeat(128)), 'file name is longer than 255 bytes', 'bytes, not characters');
  assert.equal(UPLOAD_MAX_BYTES, 64 * 1024 * 1024);
  assert.equal(DOWNLOAD_MAX_BYTES, 256 * 1024 * 1024);
});

const inventory = {
  files: [
    { path: 'docs/cv.pdf', size: 1234567, mime: 'application/pdf' },
    { path: 'photo.png', size: 512, mime: 'image/png' },
    { path: 'huge.iso', size: 70 * 1024 * 1024, mime: 'application/octet-stream' },
  ],
  truncated: false,
};

test('the inventory lists relative path, size and MIME type for the model', () => {
  assert.equal(formatInventory(inventory), [
    'A file chooser is open. Workspace files (relative path, size, MIME type):',
    '- docs/cv.pdf, 1.2 MiB (1,234,567 bytes), application/pdf',
    '- photo.png, 512 bytes, image/png',
    '- huge.iso, 70.0 MiB (73,400,320 bytes), application/octet-stream (too large to upload)',
    "To supply one, reply with Upload(file='relative/path') using a path exactly as listed.",
  ].join('\n'));
  assert.match(formatInventory({ files: [] }), /workspace folder is empty/);
  const many = { files: Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, size: 1, mime: 'text/plain' })), truncated: true };
  const text = formatInventory(many, { maxLines: 2 });
  assert.match(text, /- f1, 1 byte, text\/plain\n- … 3 more files not listed\n/);
  assert.equal(formatSize(2048), '2.0 KiB (2,048 bytes)');
});

test('Upload resolves only to a listed file within the limit', () => {
  assert.deepEqual(resolveUpload('photo.png', inventory), inventory.files[1]);
  const cases = [
    ['../etc/passwd', TRANSFER_CODES.INVALID_PATH],
    ['/home/u/x.pdf', TRANSFER_CODES.INVALID_PATH],
    ['docs\\cv.pdf', TRANSFER_CODES.INVALID_PATH],
    ['cv.pdf', TRANSFER_CODES.NOT_IN_INVENTORY],
    ['huge.iso', TRANSFER_CODES.FILE_TOO_LARGE],
  ];
  for (const [path, code] of cases) assert.throws(() => resolveUpload(path, inventory), { code }, path);
});

test('Download names: one new file name', () => {
  assert.equal(validateDownloadName('paper.pdf', inventory), 'paper.pdf');
  assert.throws(() => validateDownloadName('photo.png', inventory), { code: TRANSFER_CODES.FILE_EXISTS });
  assert.throws(() => validateDownloadName('docs/paper.pdf', inventory), (e) => e.code === TRANSFER_CODES.INVALID_NAME && /may not contain a folder/.test(e.message));
  assert.throws(() => validateDownloadName('..'), { code: TRANSFER_CODES.INVALID_NAME });
});

test('a suggested name comes from Content-Disposition or the URL, and only if safe', () => {
  assert.equal(suggestName('https://arxiv.org/pdf/2401.01234'), '2401.01234');
  assert.equal(suggestName('https://x.test/files/r%C3%A9sum%C3%A9.pdf?x=1'), 'résumé.pdf');
  assert.equal(suggestName('https://x.test/dl', 'attachment; filename="report q3.xlsx"'), 'report q3.xlsx');
  assert.equal(suggestName('https://x.test/dl', "attachment; filename*=UTF-8''na%C3%AFve.txt"), 'naïve.txt');
  assert.equal(suggestName('https://x.test/dl', 'attachment; filename="../../evil.sh"'), '_.._evil.sh', 'no folder, no leading dot');
  assert.equal(suggestName('https://x.test/'), '');
  assert.equal(suggestName('https://x.test/CON'), '');
});

test('chooser opened → next request lists the inventory once → Upload resolves to the file', async () => {
  const s = createTransferState();
  let listed = 0;
  const listInventory = async () => { listed++; return inventory; };
  assert.deepEqual(await s.requestNotes({ listInventory }), []);
  assert.throws(() => s.resolve({ name: 'Upload', args: { file: 'photo.png' } }), { code: TRANSFER_CODES.NO_CHOOSER });

  s.chooserOpened({ frameId: 'F', mode: 'selectSingle', backendNodeId: 42 });
  assert.throws(() => s.resolve({ name: 'Upload', args: { file: 'photo.png' } }), { code: TRANSFER_CODES.NOT_IN_INVENTORY }, 'not before the inventory was shown');
  const notes = await s.requestNotes({ listInventory });
  assert.equal(notes.length, 1);
  assert.equal(notes[0], formatInventory(inventory));
  assert.match((await s.requestNotes({ listInventory }))[0], /still open/);
  assert.equal(listed, 1, 'listed once per chooser');

  assert.throws(() => s.resolve({ name: 'Upload', args: { file: 'nope.txt' } }), { code: TRANSFER_CODES.NOT_IN_INVENTORY });
  const up = s.resolve({ name: 'Upload', args: { file: 'docs/cv.pdf' } });
  assert.deepEqual(up, { kind: 'upload', path: 'docs/cv.pdf', entry: inventory.files[0], chooser: { frameId: 'F', mode: 'selectSingle', backendNodeId: 42 } });
  assert.deepEqual(s.pending(), { chooser: null, download: null });
  assert.throws(() => s.resolve({ name: 'Upload', args: { file: 'docs/cv.pdf' } }), { code: TRANSFER_CODES.NO_CHOOSER }, 'one chooser, one upload');

  s.chooserOpened({ frameId: 'G', mode: 'selectSingle', backendNodeId: 7 });
  await s.requestNotes({ listInventory });
  assert.equal(listed, 2, 'a new chooser lists the inventory afresh');
});

test('download intercepted → next request says so → Download resolves to url and name', async () => {
  const s = createTransferState();
  assert.throws(() => s.resolve({ name: 'Download', args: { filename: 'a.pdf' } }), { code: TRANSFER_CODES.NO_DOWNLOAD });
  s.downloadIntercepted({ url: 'https://arxiv.org/pdf/2401.01234', mime: 'application/pdf', size: 2048, inline: true });
  const [note] = await s.requestNotes({ listInventory: async () => assert.fail('no chooser, no listing') });
  assert.equal(note, "A document was intercepted (suggested name '2401.01234', application/pdf, 2.0 KiB (2,048 bytes)) and has not been saved. To save it into the workspace, reply with Download(filename='name.ext'): one new file name, no folders.");
  assert.throws(() => s.resolve({ name: 'Download', args: { filename: 'sub/paper.pdf' } }), { code: TRANSFER_CODES.INVALID_NAME });
  assert.ok(s.pending().download, 'a refused name keeps the download pending');
  assert.deepEqual(s.resolve({ name: 'Download', args: { filename: 'paper.pdf' } }),
    { kind: 'download', filename: 'paper.pdf', url: 'https://arxiv.org/pdf/2401.01234', mime: 'application/pdf', size: 2048, suggestedName: '2401.01234' });
  assert.deepEqual(s.pending(), { chooser: null, download: null });
  s.downloadIntercepted({ url: 'https://x.test/a.zip' });
  s.reset();
  assert.deepEqual(s.pending(), { chooser: null, download: null });
});

test('Download with nothing waiting says what happened to the last download; "click first" only when none was seen', () => {
  const s = createTransferState();
  const refusal = () => { try { s.resolve({ name: 'Download', args: { filename: 'x.json' } }); } catch (err) { return err; } return null; };
  assert.match(refusal().message, /Click the page's download link or its Export\/Save button first/);
  s.downloadFailed({ suggestedName: 'data.json', reason: 'the page could not read it (TypeError: Failed to fetch)' });
  const failed = refusal();
  assert.equal(failed.code, TRANSFER_CODES.NO_DOWNLOAD);
  assert.equal(failed.message, "Download refused: the page started a download ('data.json'), but it could not be kept: the page could not read it (TypeError: Failed to fetch). Clicking its button again starts it again; if it fails again, tell the user (CallUser).");
  s.downloadIntercepted({ url: 'data:application/json,{}', suggestedName: 'data.json' });
  s.resolve({ name: 'Download', args: { filename: 'saved.json' } });
  s.downloadSaved({ name: 'data.json', filename: 'saved.json', step: 4 });
  assert.equal(refusal().message, "Download refused: no download is waiting: the last one ('data.json') was saved in step 4 as 'saved.json'. To save another file, start its download on the page first.");
  assert.doesNotMatch(refusal().message, /first;/);
});

// ---- workspace_client.js against the real gnosis-host -------------------
// (built from cmd/gnosis-host, spoken to through the extension's own
// NativeClient over the child's stdio, with a temporary workspace folder).

let tmp;
let wsDir;
let host;
let stopHost;
let ws;
const big = new Uint8Array(9 * 1024 * 1024 + 123).map((_, i) => (i * 7 + (i >> 11)) & 0xff);

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'gnosis-ws-'));
  wsDir = join(tmp, 'ws');
  mkdirSync(join(wsDir, 'docs'), { recursive: true });
  writeFileSync(join(wsDir, 'docs', 'cv.pdf'), '%PDF-1.7 curriculum');
  writeFileSync(join(wsDir, 'notes.txt'), 'x'.repeat(2500));
  writeFileSync(join(wsDir, 'big.bin'), big);
  writeFileSync(join(tmp, 'secret.txt'), 'outside');
  ({ host, stop: stopHost } = startRealHost({ dir: tmp, config: { workspace: { dir: wsDir }, log: { file: join(tmp, 'host.log') } } })); // the host logs to host.log
  ws = createWorkspaceClient({ request: (m, p, o) => host.request(m, p, o) });
});

after(async () => {
  await stopHost?.();
  rmSync(tmp, { recursive: true, force: true });
});

function tempFiles() {
  return readdirSync(wsDir).filter((n) => n.startsWith(TEMP_PREFIX_FOR_TESTS));
}
const TEMP_PREFIX_FOR_TESTS = '.gnosis-download-';

function streamOf(chunks) {
  return new ReadableStream({
    pull(c) {
      const next = chunks.shift();
      if (next === undefined) c.close();
      else c.enqueue(typeof next === 'string' ? new TextEncoder().encode(next) : next);
    },
  });
}

test('host workspace: info and inventory', async () => {
  const info = await ws.info();
  assert.equal(info.configured, true);
  assert.equal(info.dir, wsDir);
  assert.equal(info.maxUploadBytes, UPLOAD_MAX_BYTES);
  assert.equal(info.maxDownloadBytes, DOWNLOAD_MAX_BYTES);
  const inv = await ws.list();
  assert.deepEqual(inv.files.map((f) => [f.path, f.size, f.mime]), [
    ['big.bin', big.length, 'application/octet-stream'],
    ['docs/cv.pdf', 19, 'application/pdf'],
    ['notes.txt', 2500, 'text/plain'],
  ]);
});

test('host workspace: chooser → inventory → Upload → the file\'s bytes, in pieces', async () => {
  const s = createTransferState();
  s.chooserOpened({ frameId: 'F', mode: 'selectSingle', backendNodeId: 3 });
  const [note] = await s.requestNotes({ listInventory: () => ws.list() });
  assert.match(note, /- notes\.txt, 2\.4 KiB \(2,500 bytes\), text\/plain/);
  const up = s.resolve({ name: 'Upload', args: { file: 'notes.txt' } });
  let progress = 0;
  const file = await ws.readFile(up.path, { pieceBytes: 1000, onProgress: () => progress++ });
  assert.equal(progress, 3);
  assert.equal(new TextDecoder().decode(file.bytes), 'x'.repeat(2500));
  assert.equal(file.mime, 'text/plain');
  const large = await ws.readFile('big.bin');
  assert.equal(large.bytes.length, big.length, 'a 9 MiB file arrives whole (chunked replies reassembled)');
  assert.ok(Buffer.from(large.bytes).equals(Buffer.from(big)));
});

test('host workspace: a saved download tells the host where it came from (url, referrer), and only strings', async () => {
  const creates = [];
  const watching = createWorkspaceClient({ request: (m, p, o) => { if (m === 'workspace.create') creates.push(p); return host.request(m, p, o); } });
  await watching.save('from-web.txt', new TextEncoder().encode('x'), { source: { url: 'https://files.example/a.txt', referrer: 'https://app.example/page' } });
  await watching.save('no-source.txt', new TextEncoder().encode('x'), { source: { url: 42 } });
  assert.deepEqual(creates, [
    { name: 'from-web.txt', url: 'https://files.example/a.txt', referrer: 'https://app.example/page' },
    { name: 'no-source.txt' },
  ]);
});

test('host workspace: reads are confined to the folder', async () => {
  for (const [path, code] of [['../secret.txt', 'FORBIDDEN'], [join(tmp, 'secret.txt'), 'FORBIDDEN'], ['missing.txt', 'FILE_NOT_FOUND']]) {
    await assert.rejects(ws.readFile(path), (e) => e instanceof WorkspaceError && e.code === code, path);
  }
});

test('host workspace: a download streams into a new file in ≤ pieceBytes appends', async () => {
  const calls = [];
  const counting = createWorkspaceClient({ request: (m, p, o) => { calls.push([m, p?.data ? atob(p.data).length : undefined]); return host.request(m, p, o); } });
  const saved = await counting.save('paper.pdf', streamOf(['%PDF', '-1.7 ', 'a'.repeat(3000), 'end']), { pieceBytes: 1024 });
  assert.deepEqual(saved, { path: 'paper.pdf', size: 3012 });
  assert.deepEqual(calls, [['workspace.create', undefined], ['workspace.append', 1024], ['workspace.append', 1024], ['workspace.append', 964], ['workspace.commit', undefined]]);
  assert.equal(readFileSync(join(wsDir, 'paper.pdf'), 'utf8'), `%PDF-1.7 ${'a'.repeat(3000)}end`);
  const bin = await ws.save('copy.bin', big); // default 8 MiB pieces: two appends, one above 10 MiB in base64
  assert.equal(bin.size, big.length);
  assert.ok(readFileSync(join(wsDir, 'copy.bin')).equals(Buffer.from(big)));
  assert.deepEqual(tempFiles(), []);
});

test('host workspace: downloads never overwrite, refuse folders, and leave nothing behind on failure', async () => {
  await assert.rejects(ws.save('notes.txt', new TextEncoder().encode('new')), { code: 'FILE_EXISTS' });
  assert.equal(readFileSync(join(wsDir, 'notes.txt'), 'utf8'), 'x'.repeat(2500));
  await assert.rejects(ws.save('docs/x.txt', new Uint8Array(1)), { code: 'INVALID_REQUEST' });
  await assert.rejects(ws.save('too-big.bin', streamOf(['12345', '67890', 'x']), { maxBytes: 10 }), { code: 'FILE_TOO_LARGE' });
  const ac = new AbortController();
  const stopping = new ReadableStream({
    n: 0,
    pull(c) {
      if (this.n++ === 2) ac.abort();
      c.enqueue(new Uint8Array(600));
    },
  });
  await assert.rejects(ws.save('stopped.bin', stopping, { signal: ac.signal, pieceBytes: 1000 }), { code: 'CANCELLED' });
  for (const name of ['docs/x.txt', 'too-big.bin', 'stopped.bin']) assert.equal(existsSync(join(wsDir, name)), false, name);
  // The stopped download's part file goes in the background: wait for it to go, however long the machine takes.
  for (let i = 0; i < 500 && tempFiles().length; i++) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(tempFiles(), []);
});

test('host workspace: Download fetches the intercepted URL straight into the folder', async () => {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(100000, 7)]);
  const server = http.createServer((req, res) => {
    if (req.url === '/pdf/2401.01234') res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    else if (req.url === '/huge') res.writeHead(200, { 'content-length': String(DOWNLOAD_MAX_BYTES + 1) }).end();
    else res.writeHead(404).end('nope');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    const s = createTransferState();
    s.downloadIntercepted({ url: `${base}/pdf/2401.01234`, mime: 'application/pdf', inline: true });
    const d = s.resolve({ name: 'Download', args: { filename: 'arxiv-2401.01234.pdf' } });
    const saved = await ws.saveFromUrl(d.filename, d.url);
    assert.deepEqual(saved, { path: 'arxiv-2401.01234.pdf', size: pdf.length, mime: 'application/pdf' });
    assert.ok(readFileSync(join(wsDir, 'arxiv-2401.01234.pdf')).equals(pdf));

    await assert.rejects(ws.saveFromUrl('missing.pdf', `${base}/gone`), { code: 'DOWNLOAD_FAILED', message: /HTTP 404/ });
    let created = false;
    const watching = createWorkspaceClient({ request: (m, p, o) => { if (m === 'workspace.create') created = true; return host.request(m, p, o); } });
    await assert.rejects(watching.saveFromUrl('huge.bin', `${base}/huge`), { code: 'FILE_TOO_LARGE' });
    assert.equal(created, false, 'a declared oversize fails before any file is created');
    for (const name of ['missing.pdf', 'huge.bin']) assert.equal(existsSync(join(wsDir, name)), false);
    assert.deepEqual(tempFiles(), []);
  } finally {
    server.close();
  }
});
