import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inTurn } from '../../../shared/core/in_turn.js';

const tick = () => new Promise((r) => setImmediate(r));

test('a read-modify-write of one key run twice at once keeps both changes', async () => {
  const run = inTurn();
  let stored = {};
  const read = async () => { await tick(); return { ...stored }; };
  const write = async (v) => { await tick(); stored = v; };
  const add = (origin) => run('armed', async () => {
    const armed = await read();
    armed[origin] = true;
    await write(armed);
  });
  await Promise.all([add('https://a.example'), add('https://b.example'), add('https://c.example')]);
  assert.deepEqual(stored, { 'https://a.example': true, 'https://b.example': true, 'https://c.example': true });
});

test('one key runs in the order asked; a failure does not hold up the next; other keys do not wait', async () => {
  const run = inTurn();
  const seen = [];
  let release;
  const gate = new Promise((r) => { release = r; });
  const first = run('a', async () => { await gate; seen.push('a1'); throw new Error('boom'); });
  const second = run('a', () => { seen.push('a2'); return 'two'; });
  const other = run('b', () => { seen.push('b1'); return 'b'; });
  assert.equal(await other, 'b');
  assert.deepEqual(seen, ['b1'], 'b ran while a waited');
  release();
  await assert.rejects(first, /boom/);
  assert.equal(await second, 'two');
  assert.deepEqual(seen, ['b1', 'a1', 'a2']);
});
