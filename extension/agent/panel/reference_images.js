// The Side Panel's reference images: attached with the file picker or pasted
// into the task field, shown as thumbnails with a remove button, checked
// against the limits (core/image_data.js validateReferenceImages: up to four
// a message, 10 MiB each, 20 MiB together) before any byte is read, and
// handed to the next task. DOM glue only; the rules are in core/image_data.js.

import { validateReferenceImages } from '../core/image_data.js';

function readDataUrl(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(r.result);
    r.onerror = () => reject(r.error || new Error(`could not read ${file.name}`));
    r.readAsDataURL(file);
  });
}

/**
 * Wires the attach button, the hidden file input, paste on the task field,
 * the thumbnail list and the error line.
 * @param {{button: HTMLElement, input: HTMLInputElement, pasteTarget: HTMLElement, list: HTMLElement, error: HTMLElement}} els
 * @returns {{take(): object[], clear(): void, count(): number}}
 */
export function attachReferenceImages(els) {
  let images = []; // {name, mime, size, dataUrl}

  function showError(text) {
    els.error.textContent = text || '';
    els.error.hidden = !text;
  }

  function render() {
    els.list.replaceChildren(...images.map((img, i) => {
      const fig = document.createElement('figure');
      fig.className = 'attachment';
      fig.dataset.name = img.name;
      const pic = document.createElement('img');
      pic.src = img.dataUrl;
      pic.alt = img.name;
      const rm = document.createElement('button');
      rm.type = 'button';
      rm.className = 'remove';
      rm.textContent = '×';
      rm.title = `Remove ${img.name}`;
      rm.addEventListener('click', () => {
        images.splice(i, 1);
        showError('');
        render();
      });
      fig.append(pic, rm);
      return fig;
    }));
    els.list.hidden = images.length === 0;
  }

  async function add(files) {
    const list = [...files];
    if (!list.length) return;
    try {
      // Sizes and types are checked before anything is read.
      validateReferenceImages([...images, ...list.map((f) => ({ name: f.name || 'pasted image', mime: f.type, size: f.size }))]);
      const read = await Promise.all(list.map(async (f) => ({ name: f.name || 'pasted image', mime: f.type, dataUrl: await readDataUrl(f) })));
      images = validateReferenceImages([...images, ...read]);
      showError('');
      render();
    } catch (err) {
      showError(err.message);
    }
  }

  els.button.addEventListener('click', () => els.input.click());
  els.input.addEventListener('change', () => {
    add(els.input.files);
    els.input.value = '';
  });
  els.pasteTarget.addEventListener('paste', (ev) => {
    const files = [...(ev.clipboardData?.files || [])].filter((f) => f.type.startsWith('image/'));
    if (!files.length) return;
    ev.preventDefault();
    add(files);
  });
  render();

  return {
    /** The attached images, removing them from the composer. */
    take() {
      const out = images;
      images = [];
      render();
      return out;
    },
    clear() { images = []; showError(''); render(); },
    count: () => images.length,
  };
}
