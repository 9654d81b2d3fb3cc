import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCapabilityPrompt, describeArguments, exampleArguments, heading, promptDecisions, promptSummary, promptedTools } from '../../../bridge/core/capability_prompt.js';
import { parseToolCall } from '../../../bridge/core/parser.js';

const click = {
  name: 'computer.click', description: 'Click a mouse\nbutton.',
  inputSchema: {
    type: 'object', required: ['x', 'y'],
    properties: {
      x: { type: 'integer', minimum: 0, maximum: 16383, description: 'Screen x.' },
      y: { type: 'integer', minimum: 0, maximum: 16383 },
      button: { type: 'string', enum: ['left', 'right'], default: 'left' },
    },
  },
};
const typeText = { name: 'computer.type_text', description: 'Type.', inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } };
const list = { name: 'capabilities.list', description: 'List capabilities.' };

test('the prompt states the contract and lists every live capability with its arguments', () => {
  const text = buildCapabilityPrompt([typeText, list, click]);
  assert.match(text, /\{"capability": "<name>", "arguments": \{ \.\.\. \}\}/);
  assert.match(text, /ONLY a JSON object/);
  assert.match(text, /"computer\."/);
  assert.match(text, /Tools \(2\):/);
  assert.match(text, /^"computer\.click" — Click a mouse button\.$/m);
  assert.match(text, /x \(integer, required, 0\.\.16383\): Screen x\./);
  assert.match(text, /button \(string, optional, one of "left", "right", default "left"\)/);
  assert.match(text, /Meta-capabilities[^\n]*\n- "capabilities\.list" — List capabilities\./);
  assert.ok(text.indexOf('computer.click') < text.indexOf('computer.type_text'), 'sorted by name');
});

test('every example in the prompt passes the gate', () => {
  const text = buildCapabilityPrompt([click, typeText], { prefixes: ['computer'] });
  const examples = text.split('Examples of a complete reply:\n')[1].split('\n');
  assert.equal(examples.length, 2);
  for (const line of examples) assert.equal(parseToolCall(line).ok, true, line);
  assert.deepEqual(JSON.parse(examples[0]), { capability: 'computer.click', arguments: { x: 100, y: 100 } });
});

test('names every reported prefix and copes with no tools', () => {
  const text = buildCapabilityPrompt([], { prefixes: ['computer', 'office'] });
  assert.match(text, /"computer\." or "office\."/);
  assert.match(text, /Tools \(0\):/);
  assert.match(text, /\{"capability":"capabilities\.list","arguments":\{\}\}/);
});

test('argument descriptions and examples handle odd schemas', () => {
  assert.deepEqual(describeArguments(undefined), []);
  assert.deepEqual(describeArguments({ properties: { a: { oneOf: [{}, {}] }, b: { type: ['string', 'null'] }, c: { type: 'array', items: { type: 'integer' } } } }),
    ['a (one of several shapes, optional)', 'b (string|null, optional)', 'c (array of integer, optional)']);
  assert.deepEqual(exampleArguments({ required: ['k', 'n', 'f'], properties: { k: { enum: ['a', 'b'] }, n: { type: 'number', minimum: 5, maximum: 9 }, f: { type: 'boolean' } } }),
    { k: 'a', n: 9, f: false });
});

test('tools show their titles and are marked read-only or destructive', () => {
  const shot = { name: 'computer.screenshot', title: 'Take a screenshot', description: 'Look.', annotations: { readOnlyHint: true } };
  const del = { name: 'files.delete', description: 'Delete a file.', annotations: { title: 'Delete a file', destructiveHint: true } };
  const both = { name: 'files.purge', description: 'Purge.', annotations: { readOnlyHint: true, destructiveHint: true } };
  const plain = { name: 'computer.move_mouse', description: 'Move.', annotations: {} };
  const text = buildCapabilityPrompt([shot, del, both, plain], { prefixes: ['computer', 'files'] });
  assert.match(text, /^"computer\.screenshot" \(Take a screenshot\) \[read-only\] — Look\.$/m);
  assert.match(text, /^"files\.delete" \(Delete a file\) \[destructive\] — Delete a file\.$/m);
  assert.match(text, /^"files\.purge" \[destructive\] — Purge\.$/m, 'destructive wins over read-only');
  assert.match(text, /^"computer\.move_mouse" — Move\.$/m, 'no hints, no marks');
  assert.match(text, /\[destructive\] may delete or overwrite/);
  assert.match(text, /FORBIDDEN result means this site may not run that tool/);
  assert.equal(heading({ name: 'a.b', title: 'a.b' }), '"a.b"');
});

test("with the origin's decisions the prompt lists what it may run: ask ones marked, deny ones left out", () => {
  const text = buildCapabilityPrompt([typeText, list, click], { decisions: { 'computer.click': 'ask', 'computer.type_text': 'deny' } });
  assert.match(text, /Tools \(1\):/);
  assert.match(text, /^"computer\.click" \[asks the user each time\] — Click/m);
  assert.match(text, /run only once the user approves that exact call/);
  assert.doesNotMatch(text, /computer\.type_text/);
  assert.match(text, /capabilities\.list/, 'meta-capabilities stay');
  const allowed = buildCapabilityPrompt([typeText, click], { decisions: { 'computer.click': 'allow', 'computer.type_text': 'allow' } });
  assert.doesNotMatch(allowed, /asks the user/);
  assert.match(allowed, /Tools \(2\):/);
  assert.match(buildCapabilityPrompt([typeText, click], { decisions: {} }), /Tools \(0\):/, 'undecided tools are not offered');
});

test('a tool the host cannot run (unavailable) is not offered to the model', () => {
  const text = buildCapabilityPrompt([
    { name: 'computer.click', description: 'Click.', inputSchema: { type: 'object' } },
    { name: 'computer.research', description: 'Research.', inputSchema: { type: 'object' }, unavailable: 'requires MCP task augmentation, which gnosis-host does not support' },
  ]);
  assert.match(text, /computer\.click/);
  assert.doesNotMatch(text, /computer\.research/);
  assert.match(text, /Tools \(1\):/);
});

test('a name with spaces is written as the exact JSON string, named in the rules and shown in an example', () => {
  const greet = { name: 'computer.zoom (structured)', title: 'Zoom', description: 'Say hello.', inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } };
  const simple = { name: 'computer.zoom out', description: 'Out.', inputSchema: { type: 'object' } };
  const text = buildCapabilityPrompt([click, typeText, greet, simple]);
  assert.match(text, /^"computer\.zoom \(structured\)" \(Zoom\) — Say hello\.$/m, 'the quotes bound the name; the title follows in parentheses');
  assert.match(text, /^"computer\.zoom out" — Out\.$/m);
  assert.match(text, /Some names contain spaces, such as "computer\.zoom \(structured\)": the spaces are part of the name/);
  const examples = text.split('Examples of a complete reply:\n')[1].split('\n');
  assert.equal(examples.length, 3, 'the two first tools, then one with a space');
  assert.deepEqual(JSON.parse(examples[2]), { capability: 'computer.zoom (structured)', arguments: { name: 'text' } });
  // Without such a name the rule is not there.
  assert.doesNotMatch(buildCapabilityPrompt([click]), /contain spaces/);
});

test('a name with quotes or a backslash is escaped as JSON writes it', () => {
  const odd = { name: 'x.say "hi"\\now', description: 'Odd.' };
  const text = buildCapabilityPrompt([odd], { prefixes: ['x'] });
  assert.match(text, /^"x\.say \\"hi\\"\\\\now" — Odd\.$/m);
  const example = text.split('Examples of a complete reply:\n')[1];
  assert.equal(JSON.parse(example).capability, 'x.say "hi"\\now');
});

test("before Start the table's choices decide the prompt: they go over the host's decisions, which have none yet", () => {
  // An origin the host has no entry for: policy.get decides nothing, so the prompt would list no tool.
  assert.match(buildCapabilityPrompt([typeText, click], { decisions: promptDecisions({}, undefined) }), /Tools \(0\):/);
  const decisions = promptDecisions({}, { 'computer.click': 'allow', 'computer.type_text': 'ask' });
  const text = buildCapabilityPrompt([typeText, click, list], { decisions });
  assert.match(text, /Tools \(2\):/);
  assert.match(text, /^"computer\.type_text"[^\n]*\[asks the user each time\]/m);
  // A choice changed in the table wins over what the host saved.
  const changed = promptDecisions({ 'computer.click': 'allow', 'computer.type_text': 'allow' }, { 'computer.type_text': 'deny' });
  assert.deepEqual(changed, { 'computer.click': 'allow', 'computer.type_text': 'deny' });
  assert.doesNotMatch(buildCapabilityPrompt([typeText, click], { decisions: changed }), /computer\.type_text/);
  assert.throws(() => promptDecisions({}, { 'computer.click': 'always' }), /allow, ask or deny/);
  assert.throws(() => promptDecisions({}, ['computer.click']), /must be an object/);
});

test('the page says how many tools the prompt lists and how many ask, never counting the meta-capabilities', () => {
  const decisions = { 'computer.click': 'ask', 'computer.type_text': 'allow' };
  const tools = promptedTools([typeText, click, list, { name: 'computer.slow', unavailable: 'needs MCP tasks' }], { ...decisions, 'computer.slow': 'allow' });
  assert.deepEqual(tools.map((c) => c.name), ['computer.type_text', 'computer.click']);
  assert.equal(promptSummary(tools, decisions), 'It lists 2 tools, 1 of them asks each time, as chosen above.');
  assert.equal(promptSummary([typeText], { 'computer.type_text': 'allow' }), 'It lists 1 tool, as chosen above.');
  assert.match(promptSummary([], {}), /^It lists no tool: this site may run none/);
  assert.equal(promptSummary([typeText, click], undefined), 'It lists every tool the host has (2): no site is chosen.');
});
