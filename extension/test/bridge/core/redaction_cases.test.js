// The free-text forms of a secret both sides mask (issue 38 items 5 and 6):
// tests/redaction_cases.json, which the host's redaction (host/redact) is to
// be held to as well. Here the extension's: the activity log's redaction
// (redactKnowing: by value for what it knows, then the host's free-text
// rules) and the agent's key masking (maskKey), on every case that names a
// known secret. For each: none of the case's secrets comes out, all of what
// it keeps does.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { redactKnowing, REDACTED } from '../../../bridge/core/redact.js';
import { maskKey } from '../../../agent/core/server_text.js';

const { cases } = JSON.parse(fs.readFileSync(new URL('../../../../tests/redaction_cases.json', import.meta.url), 'utf8'));

test('the shared corpus was read', () => {
  assert.ok(cases.length >= 20, `${cases.length} cases`);
  for (const c of cases) assert.ok(typeof c.name === 'string' && typeof c.in === 'string' && Array.isArray(c.secrets) && Array.isArray(c.keep), JSON.stringify(c));
});

for (const c of cases) {
  test(`activity log: ${c.name}`, () => {
    const out = redactKnowing(c.in, c.known || []);
    for (const s of c.secrets) assert.ok(!out.includes(s), `${JSON.stringify(s)} came out: ${out}`);
    for (const k of c.keep) assert.ok(out.includes(k), `${JSON.stringify(k)} was lost: ${out}`);
    if (c.secrets.length) assert.ok(out.includes(REDACTED), out);
  });
}

for (const c of cases.filter((x) => x.known?.length === 1 && x.known[0].length >= 8)) {
  test(`the agent's key: ${c.name}`, () => {
    const out = maskKey(c.in, c.known[0], { error: true });
    for (const s of c.secrets) assert.ok(!out.includes(s), `${JSON.stringify(s)} came out: ${out}`);
    for (const k of c.keep) assert.ok(out.includes(k), `${JSON.stringify(k)} was lost: ${out}`);
  });
}
