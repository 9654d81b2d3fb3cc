// JSON Schema validation of the browser.* calls' arguments, which never
// reach the host (whose runtime/schema validates every other call). It
// implements a subset of draft 2020-12 exactly and refuses, when a schema
// is compiled, any keyword outside it, so no keyword is ever silently
// ignored: the browser.* schemas (core/browser_tools.js) compile, and a
// schema that needs more fails its unit test rather than passing calls it
// should refuse. Violations read like the host's: {path, keyword, message},
// path a JSON pointer into the arguments ("" for the whole object), and the
// same ones: a failed anyOf or oneOf is followed by the errors of its
// closest branch, chosen as the host chooses it (runtime/schema/logic.go).
//
// The subset: boolean schemas; type (one or a list); enum, const; for
// objects properties, required, additionalProperties (boolean or schema);
// for arrays items (one schema), minItems, maxItems; for numbers minimum,
// maximum, exclusiveMinimum, exclusiveMaximum; for strings minLength and
// maxLength (in code points) and pattern (ECMA-262 with the u flag, searched
// anywhere in the string); allOf, anyOf, oneOf, not; and the annotations
// title, description, default, examples, $comment. Numbers are the values
// JSON.parse gives, which are the values the call then runs with.
// Pure: no chrome.*.

const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment']);
const KEYWORDS = new Set([
  'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern',
  'allOf', 'anyOf', 'oneOf', 'not',
]);
const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

/** A JSON pointer token (RFC 6901). */
const token = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON type of a value as JSON Schema names it (integer for whole numbers). */
function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function fits(type, v) {
  const t = typeOf(v);
  return t === type || (type === 'number' && t === 'integer');
}

/** JSON equality (enum, const): 1 and 1.0 are equal, objects by their members. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

const isNumber = (n) => typeof n === 'number' && Number.isFinite(n);
const isCount = (n) => Number.isInteger(n) && n >= 0;

/**
 * Checks that a schema uses only the subset, with well-formed values, and
 * compiles its patterns. Throws naming the first keyword (and where) it
 * cannot take.
 * @returns {object|boolean} the compiled schema (the same shape, patterns as RegExp)
 */
export function compileSchema(schema, at = '#') {
  if (typeof schema === 'boolean') return schema;
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Error(`${at}: a schema must be an object or a boolean`);
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    const here = `${at}/${token(k)}`;
    if (ANNOTATIONS.has(k)) continue;
    if (!KEYWORDS.has(k)) throw new Error(`${here}: the keyword ${JSON.stringify(k)} is not implemented by this validator`);
    switch (k) {
      case 'type': {
        const list = Array.isArray(v) ? v : [v];
        if (!list.length || !list.every((t) => TYPES.has(t))) throw new Error(`${here}: not a JSON Schema type`);
        out.type = list;
        break;
      }
      case 'enum':
        if (!Array.isArray(v)) throw new Error(`${here}: must be an array`);
        out.enum = v;
        break;
      case 'const':
        out.const = v;
        break;
      case 'properties':
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${here}: must be an object`);
        out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, compileSchema(s, `${here}/${token(name)}`)]));
        break;
      case 'required':
        if (!Array.isArray(v) || !v.every((n) => typeof n === 'string')) throw new Error(`${here}: must be an array of strings`);
        out.required = v;
        break;
      case 'additionalProperties':
      case 'items':
      case 'not':
        out[k] = compileSchema(v, here);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        if (!Array.isArray(v) || !v.length) throw new Error(`${here}: must be a non-empty array`);
        out[k] = v.map((s, i) => compileSchema(s, `${here}/${i}`));
        if (k !== 'allOf') out[`${k}Titles`] = v.map((s) => (typeof s?.title === 'string' ? s.title : ''));
        break;
      case 'minItems':
      case 'maxItems':
      case 'minLength':
      case 'maxLength':
        if (!isCount(v)) throw new Error(`${here}: must be a non-negative integer`);
        out[k] = v;
        break;
      case 'pattern':
        if (typeof v !== 'string') throw new Error(`${here}: must be a string`);
        try {
          out.pattern = new RegExp(v, 'u');
        } catch (err) {
          throw new Error(`${here}: not an ECMA-262 regular expression: ${err.message}`, { cause: err });
        }
        out.patternSource = v;
        break;
      default: // the four numeric bounds
        if (!isNumber(v)) throw new Error(`${here}: must be a number`);
        out[k] = v;
    }
  }
  return out;
}

/** The errors of a failed anyOf or oneOf's closest branch that follow its violation, at most (the host's bound). */
const MAX_BRANCH_ERRORS = 20;

/** The other branches a failed anyOf or oneOf's message sums up, at most. */
const MAX_BRANCHES = 8;

/** Branch i of an anyOf or oneOf by name: its index, and its title when it has one. */
const branchName = (i, titles) => `#${i}${titles?.[i] ? ` (${JSON.stringify(titles[i])})` : ''}`;

/**
 * Records an anyOf or oneOf none of whose branches v matches, as the host
 * does: the violation names the closest branch, whose own errors follow it,
 * and sums up why each other branch failed, so a model can repair the value
 * toward the shape it meant. The closest branch has the fewest errors,
 * counting a type mismatch of v itself as the farthest and a const or enum
 * mismatch (a discriminator) as far; the first wins a tie. Quiet (inside a
 * branch or a not, where only pass or fail matters) it records the bare
 * violation.
 */
function noBranch(branches, titles, keyword, v, path, out, quiet) {
  const message = `must match ${keyword === 'oneOf' ? 'exactly' : 'at least'} one of the ${branches.length} ${keyword} schemas`;
  if (quiet) {
    out.push({ path, keyword, message });
    return;
  }
  const outcomes = branches.map((b) => {
    const errs = [];
    check(b, v, path, errs);
    let score = 0;
    let worst = 0;
    let worstWeight = 0;
    errs.forEach((e, j) => {
      const w = e.keyword === 'type' && e.path === path ? 1000 : e.keyword === 'const' || e.keyword === 'enum' ? 10 : 1;
      score += w;
      if (w > worstWeight) [worst, worstWeight] = [j, w];
    });
    return { errs, score, worst };
  });
  let best = 0;
  outcomes.forEach((o, i) => { if (o.score < outcomes[best].score) best = i; });
  const others = [];
  for (const [i, o] of outcomes.entries()) {
    if (i === best || !o.errs.length) continue;
    if (others.length === MAX_BRANCHES) {
      others.push('…');
      break;
    }
    const e = o.errs[o.worst];
    others.push(`${branchName(i, titles)}${e.path === path ? '' : ` at ${e.path}`}: ${e.message}`);
  }
  const sum = others.length ? `; the others fail as ${others.join('; ')}` : '';
  out.push({ path, keyword, message: `${message}; the closest is ${branchName(best, titles)}, whose errors follow${sum}` });
  out.push(...outcomes[best].errs.slice(0, MAX_BRANCH_ERRORS));
}

/**
 * Validates v against a compiled schema; pushes each violation into out.
 * quiet: only whether v passes matters (inside a branch of anyOf or oneOf,
 * or a not), so a failed anyOf or oneOf there is not explained.
 */
function check(s, v, path, out, quiet = false) {
  if (s === true) return;
  if (s === false) {
    out.push({ path, keyword: 'false', message: 'is not allowed here' });
    return;
  }
  // A value of the wrong type still meets enum, const and the applicators, as at the host.
  if (s.type && !s.type.some((t) => fits(t, v))) out.push({ path, keyword: 'type', message: `must be ${s.type.join(' or ')}, not ${typeOf(v)}` });
  if (s.enum && !s.enum.some((e) => same(e, v))) out.push({ path, keyword: 'enum', message: `must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}` });
  if ('const' in s && !same(s.const, v)) out.push({ path, keyword: 'const', message: `must be ${JSON.stringify(s.const)}` });
  if (typeof v === 'number') {
    if (s.minimum !== undefined && v < s.minimum) out.push({ path, keyword: 'minimum', message: `must be at least ${s.minimum}` });
    if (s.maximum !== undefined && v > s.maximum) out.push({ path, keyword: 'maximum', message: `must be at most ${s.maximum}` });
    if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) out.push({ path, keyword: 'exclusiveMinimum', message: `must be more than ${s.exclusiveMinimum}` });
    if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) out.push({ path, keyword: 'exclusiveMaximum', message: `must be less than ${s.exclusiveMaximum}` });
  }
  if (typeof v === 'string') {
    const length = [...v].length;
    if (s.minLength !== undefined && length < s.minLength) out.push({ path, keyword: 'minLength', message: `must be at least ${s.minLength} characters long` });
    if (s.maxLength !== undefined && length > s.maxLength) out.push({ path, keyword: 'maxLength', message: `must be at most ${s.maxLength} characters long, not ${length}` });
    if (s.pattern && !s.pattern.test(v)) out.push({ path, keyword: 'pattern', message: `must match ${s.patternSource}` });
  }
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) out.push({ path, keyword: 'minItems', message: `must have at least ${s.minItems} items` });
    if (s.maxItems !== undefined && v.length > s.maxItems) out.push({ path, keyword: 'maxItems', message: `must have at most ${s.maxItems} items` });
    if (s.items !== undefined) v.forEach((item, i) => check(s.items, item, `${path}/${i}`, out, quiet));
  }
  if (typeOf(v) === 'object') {
    for (const name of s.required || []) {
      // At the missing member's own path, as the host says it.
      if (!Object.hasOwn(v, name)) out.push({ path: `${path}/${token(name)}`, keyword: 'required', message: `${JSON.stringify(name)} is required` });
    }
    for (const [name, value] of Object.entries(v)) {
      const where = `${path}/${token(name)}`;
      if (s.properties && Object.hasOwn(s.properties, name)) check(s.properties[name], value, where, out, quiet);
      else if (s.additionalProperties === false) out.push({ path: where, keyword: 'additionalProperties', message: `${JSON.stringify(name)} is not an argument of this tool` });
      else if (s.additionalProperties !== undefined) check(s.additionalProperties, value, where, out, quiet);
    }
  }
  const passes = (sub) => {
    const errs = [];
    check(sub, v, path, errs, true);
    return errs.length === 0;
  };
  if (s.allOf) for (const sub of s.allOf) check(sub, v, path, out, quiet);
  if (s.anyOf && !s.anyOf.some(passes)) noBranch(s.anyOf, s.anyOfTitles, 'anyOf', v, path, out, quiet);
  if (s.oneOf) {
    const matched = s.oneOf.map((sub, i) => (passes(sub) ? i : -1)).filter((i) => i >= 0);
    if (!matched.length) noBranch(s.oneOf, s.oneOfTitles, 'oneOf', v, path, out, quiet);
    else if (matched.length > 1) {
      out.push({ path, keyword: 'oneOf', message: `must match exactly one of the ${s.oneOf.length} oneOf schemas, matched ${matched.length}: branches ${matched.map((i) => branchName(i, s.oneOfTitles)).join(', ')}` });
    }
  }
  if (s.not !== undefined && passes(s.not)) out.push({ path, keyword: 'not', message: 'matches a shape that is not allowed' });
}

/**
 * Validates a value against a schema compiled by compileSchema.
 * @returns {Array<{path: string, keyword: string, message: string}>} empty
 *   when valid; sorted by path, root first (the host's order)
 */
export function validate(compiled, value) {
  const out = [];
  check(compiled, value, '', out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The INVALID_ARGUMENTS message, worded as the host words its own: the first violation and how many more. */
export function invalidArgumentsMessage(capability, violations) {
  const [first] = violations;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return `arguments do not match the input schema of ${JSON.stringify(capability)}: ${first.path ? `${first.path}: ` : ''}${first.message}${more}`;
}
