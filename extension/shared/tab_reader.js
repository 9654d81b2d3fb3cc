// The tab engine's reading of a page, through CDP on an attached tab: the
// page's visible text and its usable elements (core/readable.js makes the
// text a model reads), and an element reference turned back into a point
// to act on. It runs in an isolated world of its own, so the page's scripts
// cannot change how it measures (a page that patches getBoundingClientRect
// patches its own world only). A reference is "e" and the element's
// backend node id, which the browser keeps for the element's lifetime
// whatever the page does, across debugger sessions; it can only ever name
// an element of the page it was read from.

import { readableText } from './core/readable.js';

const WORLD = 'gnosis-read';


// Runs in the page's isolated world (Runtime.evaluate): walks the document
// in order (open shadow roots included) and returns what it shows, keeping
// the elements it lists in globalThis.__gnosisElements for readTab.
function collectPage(limits) {
  const BLOCK = new Set(['ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'DD', 'DETAILS', 'DIV', 'DL', 'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'TABLE', 'TD', 'TH', 'TR', 'UL', 'LEGEND', 'OPTION']);
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'svg', 'SVG', 'OBJECT', 'EMBED', 'CANVAS']);
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'textbox', 'searchbox', 'combobox', 'slider', 'spinbutton', 'treeitem', 'listbox']);
  const INPUT_ROLES = { checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', submit: 'button', reset: 'button', button: 'button', image: 'button', file: 'file chooser', color: 'color picker' };
  const items = [];
  const elements = [];
  let visited = 0;
  let complete = true;
  let frames = 0;
  let run = '';
  let runBottom = 0;
  const flush = () => {
    const text = run.replace(/\s+/g, ' ').trim();
    if (text) items.push({ kind: 'text', text, bottom: Math.round(runBottom) });
    run = '';
  };
  const visible = (el) => (el.checkVisibility ? el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true }) : el.getClientRects().length > 0);
  const text = (el) => (el.innerText ?? el.textContent ?? '').trim();
  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (ROLES.has(explicit)) return explicit;
    const tag = el.tagName;
    if (tag === 'A' && el.hasAttribute('href')) return 'link';
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'SELECT') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'TEXTAREA') return 'textbox';
    if (tag === 'INPUT') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'hidden') return null;
      return INPUT_ROLES[type] || (type === 'password' ? 'password field' : 'textbox');
    }
    if (el.isContentEditable && !el.parentElement?.isContentEditable) return 'textbox';
    if (el.tabIndex >= 0 && el.hasAttribute('tabindex') && el !== document.body) return explicit || 'focusable';
    return null;
  };
  const nameOf = (el) => {
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return aria;
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(text).join(' ');
      if (t) return t;
    }
    if (el.labels && el.labels.length) {
      const t = [...el.labels].map(text).join(' ');
      if (t) return t;
    }
    const tag = el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('name') || '';
    const own = text(el);
    if (own) return own;
    const img = el.querySelector && el.querySelector('img[alt]');
    return el.getAttribute('title') || (img && img.getAttribute('alt')) || '';
  };
  const add = (el, role) => {
    const r = el.getBoundingClientRect();
    const item = { kind: 'element', i: elements.length, role, name: nameOf(el), box: { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) } };
    const tag = el.tagName;
    const type = tag === 'INPUT' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    if (type === 'password') item.password = true;
    else if (type === 'checkbox' || type === 'radio') item.checked = el.checked;
    else if (tag === 'INPUT' && !['submit', 'reset', 'button', 'image', 'file'].includes(type)) item.value = el.value;
    else if (tag === 'TEXTAREA') item.value = el.value;
    else if (tag === 'SELECT') item.value = [...el.selectedOptions].map((o) => o.text).join(', ');
    else if (role === 'textbox' && el.isContentEditable) item.value = text(el);
    const ariaChecked = el.getAttribute('aria-checked');
    if (item.checked === undefined && (ariaChecked === 'true' || ariaChecked === 'false')) item.checked = ariaChecked === 'true';
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') item.disabled = true;
    if (role === 'link' && el.href) item.href = String(el.href);
    items.push(item);
    elements.push(el);
  };
  const walk = (node) => {
    if (!complete) return;
    if (++visited > limits.nodes || elements.length >= limits.elements || items.length >= limits.items) {
      complete = false;
      return;
    }
    if (node.nodeType === 3) {
      if (node.data.trim()) {
        if (!run) runBottom = node.parentElement ? node.parentElement.getBoundingClientRect().bottom : 0;
        run += node.data;
      }
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 11) return;
    if (node.nodeType === 1) {
      const el = node;
      if (SKIP.has(el.tagName)) return;
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        frames++;
        return;
      }
      if (!visible(el)) return;
      const role = roleOf(el);
      if (role) {
        flush();
        add(el, role);
        return;
      }
      const block = BLOCK.has(el.tagName);
      if (block) flush();
      const heading = /^H([1-6])$/.exec(el.tagName);
      if (heading) {
        const t = text(el);
        if (t && !el.querySelector('a[href],button,input,select,textarea,[role]')) {
          items.push({ kind: 'text', text: t, heading: Number(heading[1]), bottom: Math.round(el.getBoundingClientRect().bottom) });
          return;
        }
      }
      if (el.shadowRoot) walk(el.shadowRoot);
      for (let c = el.firstChild; c; c = c.nextSibling) walk(c);
      if (block) flush();
      return;
    }
    for (let c = node.firstChild; c; c = c.nextSibling) walk(c);
  };
  if (document.body) walk(document.body);
  flush();
  globalThis.__gnosisElements = elements;
  const vv = window.visualViewport;
  const root = document.documentElement;
  return {
    title: document.title,
    url: location.href,
    viewport: { width: Math.round(vv ? vv.width : root.clientWidth), height: Math.round(vv ? vv.height : root.clientHeight) },
    scroll: { x: Math.round(window.scrollX), y: Math.round(window.scrollY) },
    page: { width: Math.round(root.scrollWidth), height: Math.round(root.scrollHeight) },
    items,
    complete,
    frames,
  };
}


// Runs on the element (Runtime.callFunctionOn, in the isolated world):
// brings it into view when it is not, and says where its centre is and
// whether the page shows something else there.
function placeElement() {
  if (!this.isConnected) return { gone: true };
  let r = this.getBoundingClientRect();
  const vw = document.documentElement.clientWidth;
  const vh = document.documentElement.clientHeight;
  if (r.bottom <= 0 || r.top >= vh || r.right <= 0 || r.left >= vw) {
    this.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = this.getBoundingClientRect();
  }
  if (r.width <= 0 || r.height <= 0) return { hidden: true };
  const x = Math.min(Math.max(r.left + r.width / 2, 0), vw - 1);
  const y = Math.min(Math.max(r.top + r.height / 2, 0), vh - 1);
  const top = document.elementFromPoint(x, y);
  const covered = top && top !== this && !this.contains(top) && !(top.contains && top.contains(this) && top.shadowRoot);
  return { x, y, covered: covered ? top.tagName.toLowerCase() + (top.id ? `#${top.id}` : '') : '' };
}

/** The bounds of the collector's walk. */
const WALK = { nodes: 30_000, elements: 2000, items: 4000 };

async function isolatedWorld(send) {
  const { frameTree } = await send('Page.getFrameTree');
  const { executionContextId } = await send('Page.createIsolatedWorld', { frameId: frameTree.frame.id, worldName: WORLD });
  return executionContextId;
}

/** The reference of an element by its backend node id, and back. */
const refOf = (backendNodeId) => `e${backendNodeId}`;
const backendIdOf = (ref) => Number(/^e([0-9]+)$/.exec(ref)?.[1]);

/**
 * Reads an attached tab.
 * @param {number} tabId the tab, for the text's first line
 * @param {(method: string, params?: object) => Promise<any>} send CDP to that tab
 * @returns {Promise<{text: string, elements: number, cut: boolean, viewport: {width: number, height: number}}>}
 */
export async function readTab(tabId, send) {
  const contextId = await isolatedWorld(send);
  const r = await send('Runtime.evaluate', { expression: `(${collectPage.toString()})(${JSON.stringify(WALK)})`, contextId, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`the page could not be read: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
  const snap = r.result.value;
  const list = await send('Runtime.evaluate', { expression: 'globalThis.__gnosisElements', contextId });
  const refs = [];
  if (list.result?.objectId) {
    const { result: props } = await send('Runtime.getProperties', { objectId: list.result.objectId, ownProperties: true });
    for (const p of props) {
      if (!/^[0-9]+$/.test(p.name) || !p.value?.objectId) continue;
      const { node } = await send('DOM.describeNode', { objectId: p.value.objectId });
      refs[Number(p.name)] = refOf(node.backendNodeId);
    }
    await send('Runtime.releaseObjectGroup', { objectGroup: '' }).catch(() => {});
  }
  return { ...readableText(snap, refs, { tabId }), viewport: snap.viewport };
}

/**
 * The CSS point to act on an element by its reference: its centre, once it
 * is in view. An element that is gone, has no size, or lies under another
 * is said as an error the model reads.
 * @returns {Promise<{x: number, y: number, covered: string}|{error: string}>}
 */
export async function pointOfRef(ref, send) {
  const backendNodeId = backendIdOf(ref);
  if (!Number.isSafeInteger(backendNodeId)) return { error: `${ref} is not an element reference (they look like e12)` };
  const contextId = await isolatedWorld(send);
  let objectId;
  try {
    ({ object: { objectId } } = await send('DOM.resolveNode', { backendNodeId, executionContextId: contextId }));
  } catch {
    return { error: `${ref} is not on this page any more (it changed or was left since it was read): use browser.read again` };
  }
  const r = await send('Runtime.callFunctionOn', { objectId, functionDeclaration: placeElement.toString(), returnByValue: true });
  await send('Runtime.releaseObject', { objectId }).catch(() => {});
  const at = r.result?.value;
  if (!at || at.gone) return { error: `${ref} is not on this page any more (it changed since it was read): use browser.read again` };
  if (at.hidden) return { error: `${ref} has no size on the page now (it is hidden): use browser.read again` };
  return at;
}
