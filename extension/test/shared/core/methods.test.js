// The host's method names stand in one table (shared/core/methods.js): code
// that sends a host request names its method through METHODS, so a renamed
// method is one edit and the Go test that compares the table with the host's
// list covers every call.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { METHODS } from '../../../shared/core/methods.js';

const EXT = fileURLToPath(new URL('../../../', import.meta.url));

/** The extension's own source files: not its tests, not the generated bundles. */
function sources(dir = EXT) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!['test', 'hostbin'].includes(e.name)) out.push(...sources(p));
    } else if (e.name.endsWith('.js') && !e.name.endsWith('.bundle.js')) {
      out.push(p);
    }
  }
  return out;
}

test('no host request names its method with a string literal', () => {
  const literal = /\b(?:request|hostRequest|send)\(\s*(['"`])([a-z]+(?:\.[a-zA-Z]+)*)\1/g;
  const names = new Set(Object.values(METHODS));
  const found = [];
  for (const file of sources()) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(literal)) {
      if (names.has(m[2])) found.push(`${relative(EXT, file)}: ${m[0]}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the table names each method once', () => {
  const values = Object.values(METHODS);
  assert.equal(new Set(values).size, values.length);
  for (const [key, name] of Object.entries(METHODS)) assert.equal(key, name.toUpperCase().replaceAll('.', '_'));
});
