// The system prompt tells the model every action the parser accepts and the
// executor performs, Upload and Download included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import { ACTIONS } from '../../../agent/core/action_parser.js';
import { surfacesPrompt } from '../../../agent/core/desktop_surface.js';
import { fillTemplate } from '../../../agent/core/prompt.js';

const raw = fs.readFileSync(new URL('../../../agent/prompts/venus_system.txt', import.meta.url), 'utf8');
// With a desktop offered: SwitchSurface is described in the surfaces lines.
const template = fillTemplate(raw, { surfaces: surfacesPrompt({ offered: true, prefix: 'desktop' }) });

test('without a desktop the prompt names no surface and leaves no placeholder', () => {
  const plain = fillTemplate(raw, { surfaces: surfacesPrompt(null) });
  assert.doesNotMatch(plain, /SwitchSurface|\{\{surfaces\}\}/);
});

test('the system prompt describes every action, with its arguments', () => {
  for (const [name, params] of Object.entries(ACTIONS)) {
    const line = template.split('\n').find((l) => l.startsWith(`- ${name}(`));
    assert.ok(line, `${name} is listed`);
    for (const p of params.filter((x) => x.required)) assert.match(line, new RegExp(`\\b${p.name}=`), `${name} shows its ${p.name} argument`);
  }
});

test('the system prompt says a CallUser answer continues the task', () => {
  assert.match(template, /CallUser\(content='your question'\).*the answer comes in the next turn and you continue the same task/);
});
