import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  checkFileName, checkRelativePath, createTransferState, DOWNLOAD_MAX_BYTES, formatInventory, formatSize, resolveUpload,
  suggestName, TRANSFER_CODES, UPLOAD_MAX_BYTES, validateDownloadName,
} from '../agent/file_transfer.js';

// The same table the host's Go tests read: both sides agree on every name.
const shared = JSON.parse(readFileSync(new URL('../../host/workspace/testdata/names.json', import.meta.url), 'utf8'));

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
  assert.equal(suggestName('https://x.test/dl', 'attachment; filename="../../evil.sh"'), '.._.._evil.sh');
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
    { kind: 'download', filename: 'paper.pdf', url: 'https://arxiv.org/pdf/2401.01234', mime: 'application/pdf', size: 2048 });
  assert.deepEqual(s.pending(), { chooser: null, download: null });
  s.downloadIntercepted({ url: 'https://x.test/a.zip' });
  s.reset();
  assert.deepEqual(s.pending(), { chooser: null, download: null });
});
