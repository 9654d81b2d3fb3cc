// The capability prompt: the agent-facing text that teaches a chat model the
// tool-call contract, generated from the live capability list and schemas the
// host reports, narrowed to what the site may run. Pure: the worker fetches
// capabilities.list/describe and the origin's decisions (policy.get) and hands
// them here; the options page copies the text or inserts it into the chat.
// Every name is written as the JSON string the model must send (quotes
// included), so a name with spaces ("computer.greet (structured)") has
// visible boundaries and reads as one name.
import { checkGrants, titleOf } from './grants.js';
import { groupOf } from './grant_table.js';
import { browserPromptNotes } from './browser_tools.js';

/**
 * The decisions a prompt is built from: the host's for the origin, with the
 * options page's table over them when it sends its choices (before Start
 * they are not saved in the host yet, and the prompt must list what the
 * table shows). Choices that are not a grants object are refused.
 * @param {Record<string, string>} [saved] policy.get's decisions
 * @param {unknown} [choices] the table's choices, or undefined
 * @returns {Record<string, 'allow'|'ask'|'deny'>}
 */
export function promptDecisions(saved, choices) {
  return { ...(saved || {}), ...(choices === undefined ? {} : checkGrants(choices)) };
}

/**
 * The tools a prompt lists: those decided allow or ask (all when there are no
 * decisions), never the meta-capabilities or a tool the host cannot run.
 */
export function promptedTools(capabilities, decisions) {
  const decided = (c) => !decisions || decisions[c.name] === 'allow' || decisions[c.name] === 'ask';
  // A tool the host cannot run (it requires MCP tasks: `unavailable`) is not offered to the model.
  return (capabilities || []).filter((c) => c && typeof c.name === 'string' && !c.name.startsWith('capabilities.') && decided(c) && !c.unavailable);
}

/** What the page says about a prompt: "14 tools, 3 of them ask each time". */
export function promptSummary(tools, decisions) {
  if (!decisions) return `It lists every tool the host has (${tools.length}): no site is chosen.`;
  const asks = tools.filter((c) => decisions?.[c.name] === 'ask').length;
  if (!tools.length) return 'It lists no tool: this site may run none (allow some above, or set them to Ask).';
  return `It lists ${tools.length} tool${tools.length === 1 ? '' : 's'}${asks ? `, ${asks} of them ask${asks === 1 ? 's' : ''} each time` : ''}, as chosen above.`;
}

/**
 * Builds the prompt.
 * @param {Array<{name: string, title?: string, description?: string, annotations?: object, inputSchema?: object}>} capabilities
 * @param {{prefixes?: string[], decisions?: Record<string, 'allow'|'ask'|'deny'>, images?: boolean}} [options]
 *   decisions: the origin's, from policy.get; with them the prompt lists only
 *   the tools decided allow or ask (ask ones marked), never deny or undecided.
 *   images: false when the site is set to take no images (its tools' images are then only named).
 * @returns {string}
 */
export function buildCapabilityPrompt(capabilities, { prefixes = ['computer'], decisions, images = true } = {}) {
  const caps = [...(capabilities || [])].filter((c) => c && typeof c.name === 'string')
    .sort((a, b) => a.name.localeCompare(b.name));
  const asks = (c) => decisions?.[c.name] === 'ask';
  const tools = promptedTools(caps, decisions);
  const meta = caps.filter((c) => c.name.startsWith('capabilities.'));
  const lines = [];
  lines.push('You can operate a computer through tools. To call a tool, reply with ONLY a JSON object in this exact shape, and nothing else in that message:');
  lines.push('');
  lines.push('{"capability": "<name>", "arguments": { ... }}');
  lines.push('');
  lines.push('Rules:');
  lines.push(`- "capability" is one of the names listed below, written exactly as the JSON string shown there (they start with ${prefixes.map((p) => `"${p}."`).join(' or ')}), or a "capabilities." meta-capability.`);
  const spaced = tools.find((c) => c.name.includes(' '));
  if (spaced) lines.push(`- Some names contain spaces, such as ${JSON.stringify(spaced.name)}: the spaces are part of the name; keep each one, add none.`);
  lines.push('- "arguments" is an object that matches the tool\'s arguments; omit optional ones you do not need.');
  lines.push('- One call per message. No prose, no explanation, no second object. A Markdown ```json fence around the object is fine.');
  lines.push('- The result comes back as the next message, as JSON: {"ok": true, "result": ...} or {"ok": false, "code": "...", "message": "..."}. Read it before the next step.');
  lines.push(images
    ? '- Images a tool returns (a screenshot) arrive attached to that same message, after the result text. The text names each image in order, with its size and the screen\'s, and says how a point (x, y) in the image maps to the tool\'s coordinates: apply that rule before you pass a point to a tool. An image the text says was not attached is one you cannot see.'
    : '- This site takes no images: an image a tool returns is only named in the result text, and you cannot see it.');
  lines.push('- When the task is done, or you need the user, answer in normal prose (no JSON object): that ends the tool loop.');
  lines.push('- Tools marked [read-only] only look; tools marked [destructive] may delete or overwrite things: use them only when the task needs it.');
  if (tools.some(asks)) lines.push('- Tools marked [asks the user each time] run only once the user approves that exact call.');
  lines.push('- A FORBIDDEN result means this site may not run that tool, or the user said no: do not retry it; tell the user.');
  const browser = browserPromptNotes(caps, tools);
  if (browser.length) lines.push('', ...browser);
  lines.push('');
  lines.push(`Tools (${tools.length}):`);
  for (const c of tools) {
    lines.push('');
    lines.push(`${heading(c)}${asks(c) ? ' [asks the user each time]' : ''}${c.description ? ` — ${oneLine(c.description)}` : ''}`);
    const args = describeArguments(c.inputSchema);
    lines.push(args.length ? args.map((a) => `  - ${a}`).join('\n') : '  (no arguments)');
  }
  if (meta.length) {
    lines.push('');
    lines.push('Meta-capabilities (discover tools at any time):');
    for (const c of meta) lines.push(`- ${JSON.stringify(c.name)}${c.description ? ` — ${oneLine(c.description)}` : ''}`);
  }
  // Two examples, and a third with a name that has spaces when the first two have none.
  const shown = tools.slice(0, 2);
  if (spaced && !shown.includes(spaced)) shown.push(spaced);
  const examples = shown.map((c) => ({ capability: c.name, arguments: exampleArguments(c.inputSchema) }));
  if (!examples.length) examples.push({ capability: 'capabilities.list', arguments: {} });
  lines.push('');
  lines.push('Examples of a complete reply:');
  for (const e of examples) lines.push(JSON.stringify(e));
  return lines.join('\n');
}

/**
 * A tool's heading: its name as a JSON string, its title when it has one,
 * and what its hints mark it (as its group on the options page): read-only
 * or destructive; a tool with no hints is marked neither.
 */
export function heading(c) {
  const title = titleOf(c);
  const mark = { 'read-only': '[read-only]', destructive: '[destructive]' }[groupOf({ annotations: c.annotations })];
  return [JSON.stringify(c.name), title !== c.name ? `(${oneLine(title)})` : '', mark].filter(Boolean).join(' ');
}

/** One line per property: name, type, required/optional, allowed values, bounds, description. */
export function describeArguments(schema) {
  if (!schema || typeof schema !== 'object' || !schema.properties) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(schema.properties).map(([name, prop]) => {
    const p = prop && typeof prop === 'object' ? prop : {};
    const bits = [typeName(p)];
    bits.push(required.has(name) ? 'required' : 'optional');
    if (Array.isArray(p.enum)) bits.push(`one of ${p.enum.map((v) => JSON.stringify(v)).join(', ')}`);
    if (p.minimum !== undefined || p.maximum !== undefined) bits.push(`${p.minimum ?? '…'}..${p.maximum ?? '…'}`);
    if (p.default !== undefined) bits.push(`default ${JSON.stringify(p.default)}`);
    return `${name} (${bits.join(', ')})${p.description ? `: ${oneLine(p.description)}` : ''}`;
  });
}

/** Example arguments: every required property with a plausible value. */
export function exampleArguments(schema) {
  const out = {};
  if (!schema || !schema.properties) return out;
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    out[name] = exampleValue(schema.properties[name] || {});
  }
  return out;
}

function exampleValue(p) {
  if (p.default !== undefined) return p.default;
  if (Array.isArray(p.enum) && p.enum.length) return p.enum[0];
  const type = Array.isArray(p.type) ? p.type[0] : p.type;
  switch (type) {
    case 'integer': case 'number': return Math.max(Number(p.minimum ?? 0), Math.min(100, Number(p.maximum ?? 100)));
    case 'boolean': return false;
    case 'array': return [];
    case 'object': return {};
    default: return 'text';
  }
}

function typeName(p) {
  if (Array.isArray(p.type)) return p.type.join('|');
  if (p.type === 'array' && p.items?.type) return `array of ${p.items.type}`;
  if (p.type) return p.type;
  if (p.oneOf || p.anyOf) return 'one of several shapes';
  return 'any';
}

function oneLine(s) {
  return String(s).replace(/\s+/g, ' ').trim();
}
