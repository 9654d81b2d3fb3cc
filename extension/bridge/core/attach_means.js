// How the chat bridge attaches an image to a chat page, as a person would: a
// paste into the input, a drop onto it (or onto the page's drop zone), or the
// page's file input. The person's choice on the options page ("Attach images
// by") wins; left automatic, the site's preset says which (what the site is
// known to take); without a preset, or when the preset's file input is gone,
// what the page shows decides: a file input that takes images near the input,
// a drop zone around it, an attach button (its file input made only when
// clicked: pasting is how such pages take an image), else the page takes no
// images. Pure: the content script describes the page (bridge/page/attach_detect.js).

/** The choices of "Attach images by" ('' is automatic). */
export const ATTACH_BY = Object.freeze(['', 'paste', 'drop', 'file', 'none']);

/** The words the options page shows for each choice. */
export const ATTACH_LABELS = Object.freeze({
  '': 'Automatic', paste: 'Pasting into the input', drop: 'Dropping onto the page', file: 'The page’s file input', none: 'Not at all: the page takes no images',
});

/** The type the bridge attaches images as (shared/image_encode.js encodes JPEG). */
export const SENT_TYPE = 'image/jpeg';

const EXTENSIONS = { 'image/jpeg': ['.jpg', '.jpeg', '.jfif'], 'image/png': ['.png'], 'image/webp': ['.webp'], 'image/gif': ['.gif'] };

/** Whether a file input's accept attribute ('' takes anything) takes files of type mime. */
export function acceptsType(accept, mime) {
  const tokens = String(accept || '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
  if (!tokens.length) return true;
  const type = String(mime).toLowerCase();
  return tokens.some((t) => t === type || t === '*/*' || (t.endsWith('/*') && type.startsWith(t.slice(0, -1))) || (EXTENSIONS[type] || []).includes(t));
}

/** How a means reads in a message: "a paste into the input", "the file input input#upload". */
export function describeMeans({ by, target }) {
  if (by === 'paste') return target ? `a paste into ${target}` : 'a paste into the input';
  if (by === 'drop') return target ? `a drop onto ${target}` : 'a drop onto the input';
  if (by === 'file') return target ? `the file input ${target}` : 'the page’s file input';
  return 'nothing (the page takes no images)';
}

/**
 * The means for this page.
 * @param {{attachBy?: string, attachTarget?: string}} settings the site's settings
 * @param {{attach?: {by: string, target: string}, name?: string}|null} preset the site's preset, if any
 * @param {Facts|(() => Facts)} facts what the page shows (bridge/page/attach_detect.js), or a function that
 *   describes it, called only when the decision needs it (reading the page costs a layout):
 *   Facts = {fileInputs?: Array<{css, accept, near}>, dropZones?: Array<{css, why}>, attachButton?: string}: its file
 *   inputs (near: in the composer), the drop zones around the input, the name of an attach button near the input ('' when none)
 * @param {(css: string) => {count: number, fileInput: boolean, accept: string}} check what a selector matches on the page
 * @returns {{by: 'paste'|'drop'|'file'|'none', target: string, from: 'settings'|'preset'|'page', why: string, problem?: string, guess?: boolean}}
 *   problem: why this means cannot work on the page now; guess: what the page shows only suggests it
 */
export function attachMeans(settings, preset, facts, check) {
  let read = null;
  const page = () => (read ||= (typeof facts === 'function' ? facts() : facts) || {});
  const by = settings?.attachBy || '';
  const target = settings?.attachTarget || '';
  if (by === 'none') return { by: 'none', target: '', from: 'settings', why: 'Attach images by is set to “Not at all” for this site' };
  if (by) return chosen({ by, target }, 'settings', 'chosen on the options page', page, check);
  if (preset?.attach) {
    const p = chosen(preset.attach, 'preset', `what ${preset.name} is known to take`, page, check);
    if (!p.problem) return p;
    const found = fromPage(page());
    return { ...found, why: `${found.why} (the ${preset.name} preset’s way, ${describeMeans(preset.attach)}, does not work here: ${p.problem})` };
  }
  return fromPage(page());
}

/** A means set by the person or a preset, checked against the page (page(): what it shows). */
function chosen(means, from, why, page, check) {
  if (means.by !== 'file') return { ...means, from, why };
  if (!means.target) {
    const input = bestFileInput(page());
    return input ? { by: 'file', target: input.css, from, why } : { by: 'file', target: '', from, why, problem: 'no file input on the page takes images' };
  }
  const c = check(means.target);
  if (!c.count) return { ...means, from, why, problem: `${means.target} matches nothing on the page` };
  if (!c.fileInput) return { ...means, from, why, problem: `${means.target} is not a file input` };
  if (!acceptsType(c.accept, SENT_TYPE)) return { ...means, from, why, problem: `the file input takes only ${c.accept}, not JPEG images` };
  return { ...means, from, why };
}

function bestFileInput(facts) {
  const images = (facts?.fileInputs || []).filter((f) => acceptsType(f.accept, SENT_TYPE));
  const near = images.filter((f) => f.near);
  if (near.length) return near.find((f) => /image/i.test(f.accept)) || near[0];
  return images.length === 1 ? images[0] : null;
}

/** What the page shows, without a choice or a preset. */
function fromPage(facts) {
  const input = bestFileInput(facts);
  if (input?.near) return { by: 'file', target: input.css, from: 'page', why: `a file input that takes images next to the input (${input.css})` };
  const zone = facts?.dropZones?.[0];
  if (zone) return { by: 'drop', target: zone.css, from: 'page', why: `the drop zone around the input (${zone.why})` };
  if (facts?.attachButton) return { by: 'paste', target: '', from: 'page', guess: true, why: `the page has an attach button (“${facts.attachButton}”) and no file input until it is clicked: pages like this take pasted images, else a drop onto the input` };
  if (input) return { by: 'file', target: input.css, from: 'page', guess: true, why: `the page’s one file input that takes images (${input.css}), away from the input` };
  return { by: 'none', target: '', from: 'page', why: 'this page shows no way to attach images: no file input, drop zone or attach button near the input' };
}

/**
 * What the options page's live check says under "Attach images by": the
 * means in use and why, a means that cannot work here, or that the page
 * takes no images. {text, kind: 'ok'|'bad'|'warn'|''}.
 * @param {ReturnType<typeof attachMeans>} means as the page decided it
 */
export function attachMessage(means) {
  if (!means) return { text: '', kind: '' };
  if (means.by === 'none') {
    return means.from === 'settings'
      ? { text: 'Images are not attached on this site: the text names them, and the model cannot see them.', kind: '' }
      : { text: `✗ This page takes no images: ${means.why.replace(/^this page shows /, 'it shows ')}. The text will say so; choose a way above if the page does take them.`, kind: 'warn' };
  }
  const how = describeMeans(means);
  const auto = means.from === 'settings' ? '' : 'Automatic: ';
  if (means.problem) return { text: `✗ ${auto}${how}: ${means.problem}. Pick the attach button or the drop zone, or choose another way.`, kind: 'bad' };
  if (means.guess) return { text: `Automatic, a guess: ${how} (${means.why}). The first image shows whether the page takes it; Pick to be sure.`, kind: '' };
  return { text: `✓ ${auto}${how} (${means.why})`, kind: 'ok' };
}
