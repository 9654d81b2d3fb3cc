// The setup page's rules, pure: when installing or updating opens it, the
// MCP server form read into the host's providers.set params and filled back
// from a providers.list entry (environment values are never shown: a name
// alone keeps its stored value), the Munim shortcut's params, what a
// providers.check finding says at the field, and where a host error about
// one field goes. Tested with node --test.

/**
 * Whether onInstalled opens the setup page: on install, and on an update
 * that changed the protocols the extension speaks (the host may need updating
 * too); seen is the range stored at the last install or update.
 */
export function opensSetup(reason, seen, range) {
  if (reason === 'install') return true;
  if (reason !== 'update') return false;
  return !seen || seen.min !== range.min || seen.max !== range.max;
}

/** The form's fields, in the order the host checks them. */
export const PROVIDER_FIELDS = Object.freeze(['name', 'command', 'args', 'env', 'prefix', 'timeout', 'startTimeout']);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads the form into providers.set's params. args: one argument per line
 * (blank lines dropped; spaces inside a line kept). env: NAME=value per line;
 * a NAME alone keeps the value stored for it (null). Timeouts are seconds.
 * @param {{name: string, command: string, args: string, env: string, prefix: string, timeout: string, startTimeout: string}} form
 * @returns {{params: object, errors: Object<string, string>}}
 */
export function providerParams(form) {
  const errors = {};
  const params = { name: String(form.name || '').trim(), command: String(form.command || '').trim() };
  if (!params.name) errors.name = 'Give the server a name, e.g. files.';
  if (!params.command) errors.command = "Give the full path of the server's program.";
  const args = String(form.args || '').split(/\r?\n/).filter((l) => l.trim() !== '');
  if (args.length) params.args = args;
  const env = {};
  for (const [i, line] of String(form.env || '').split(/\r?\n/).entries()) {
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    const name = (eq < 0 ? line : line.slice(0, eq)).trim();
    if (!ENV_NAME.test(name)) {
      errors.env = `Line ${i + 1}: ${JSON.stringify(name)} is not a variable name (letters, digits and _, not starting with a digit).`;
      break;
    }
    env[name] = eq < 0 ? null : line.slice(eq + 1);
  }
  if (Object.keys(env).length) params.env = env;
  const prefix = String(form.prefix || '').trim();
  if (prefix) params.prefix = prefix;
  for (const field of ['timeout', 'startTimeout']) {
    const s = String(form[field] ?? '').trim();
    if (!s) continue;
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0) errors[field] = 'Give a number of seconds.';
    else params[field] = n;
  }
  return { params, errors };
}

/**
 * A providers.list entry as the form shows it: arguments one per line, each
 * stored variable by its name alone (kept unless a value is typed after it).
 */
export function formFromProvider(p) {
  return {
    name: p.name || '', command: p.command || '', args: (p.args || []).join('\n'),
    env: (p.envNames || []).join('\n'), prefix: p.prefix || '',
    timeout: p.timeout ? String(p.timeout) : '', startTimeout: p.startTimeout ? String(p.startTimeout) : '',
  };
}

/** The name the Munim shortcut gives its provider (its prefix defaults to computer). */
export const MUNIM = 'munim';

/**
 * The Munim shortcut's providers.set params: only the program's path is
 * asked; a Munim already configured keeps its arguments, variables (by name)
 * prefix and timeouts.
 */
export function munimParams(command, existing = null) {
  const params = { name: MUNIM, command: String(command || '').trim() };
  if (existing) {
    if (existing.args?.length) params.args = [...existing.args];
    if (existing.envNames?.length) params.env = Object.fromEntries(existing.envNames.map((n) => [n, null]));
    if (existing.prefix) params.prefix = existing.prefix;
    if (existing.timeout) params.timeout = existing.timeout;
    if (existing.startTimeout) params.startTimeout = existing.startTimeout;
  }
  return params;
}

/**
 * What a providers.check finding says at the command field.
 * @param {{status: string, message?: string, fix?: string, stderr?: string, toolCount?: number}} finding
 * @returns {{tone: 'ok'|'warn'|'bad', text: string, fix: string, stderr: string, usable: boolean}}
 */
export function checkNote(finding) {
  const text = String(finding?.message || '');
  const fix = String(finding?.fix || '');
  const stderr = String(finding?.stderr || '');
  if (finding?.status === 'ok') {
    const tools = Number(finding.toolCount) || 0;
    return { tone: tools ? 'ok' : 'warn', text, fix: tools ? '' : fix, stderr: '', usable: true };
  }
  return { tone: 'bad', text, fix, stderr, usable: false };
}

/**
 * Where a host error goes: the field INVALID_ARGUMENTS names (details.field,
 * its message without the leading "field: "), else the form as a whole.
 * @param {{code?: string, error?: string, details?: {field?: string}}} reply
 * @returns {{field: string, text: string}} field '' for the form
 */
export function fieldError(reply) {
  const field = reply?.details?.field;
  const text = String(reply?.error || 'the host refused it');
  if (field && PROVIDER_FIELDS.includes(field)) {
    const own = text.startsWith(`${field}: `) ? text.slice(field.length + 2) : text;
    return { field, text: own.charAt(0).toUpperCase() + own.slice(1) };
  }
  return { field: '', text };
}

/** A name for a new server: the program's file name without its extension, made valid, not already taken. */
export function suggestName(command, taken = []) {
  const file = String(command || '').split(/[\\/]/).pop().replace(/\.(exe|cmd|bat|com|js|mjs|py)$/i, '');
  let base = file.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+|-+$/g, '').slice(0, 40) || 'server';
  if (!/^[a-z0-9]/.test(base)) base = `s${base}`;
  let name = base;
  for (let i = 2; taken.includes(name); i++) name = `${base}-${i}`;
  return name;
}
