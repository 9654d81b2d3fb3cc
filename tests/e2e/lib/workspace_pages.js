// Pages and helpers of the browser agent's Upload and Download end-to-end tests:
// target pages for Upload and Download, deterministic file bytes, and a
// workspace-aware host configuration.
import crypto from 'node:crypto';

/** A page with a file input; what it receives lands in window.events as file:name:size:sha256:trusted. */
export const UPLOAD_HTML = `<!doctype html>
<html><head><title>Upload target</title><style>
body { margin: 0; font: 16px sans-serif; }
#f { position: absolute; left: 100px; top: 100px; width: 320px; height: 40px; }
</style></head><body>
<input type="file" id="f">
<script>
window.events = [];
document.getElementById('f').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return window.events.push('file:none');
  const hash = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  const hex = Array.from(new Uint8Array(hash)).map((b) => b.toString(16).padStart(2, '0')).join('');
  window.events.push('file:' + file.name + ':' + file.size + ':' + hex + ':' + e.isTrusted);
});
</script></body></html>`;

/** Links to a file served as an attachment, to an inline PDF, and an <a download> link. */
export const DOWNLOAD_HTML = `<!doctype html>
<html><head><title>Download target</title><style>
body { margin: 0; font: 16px sans-serif; }
#dl { position: absolute; left: 100px; top: 100px; width: 240px; height: 40px; display: block; }
#pdf { position: absolute; left: 100px; top: 200px; width: 240px; height: 40px; display: block; }
#attr { position: absolute; left: 100px; top: 300px; width: 240px; height: 40px; display: block; }
</style></head><body>
<a id="dl" href="/files/report.bin">Download the report</a>
<a id="pdf" href="/files/paper.pdf">Open the paper</a>
<a id="attr" href="/files/data.csv" download>Save the data</a>
</body></html>`;

/** Deterministic bytes of a given size. */
export function bytesOf(size, seed = 7) {
  const b = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) { x = (x * 1103515245 + 12345) & 0x7fffffff; b[i] = x >> 16; }
  return b;
}

export const sha256 = (buf) => crypto.createHash('sha256').update(buf).digest('hex');

/** A static route serving body with the given headers. */
export function fileRoute(body, headers) {
  return (req, res) => {
    res.writeHead(200, { 'content-length': String(body.length), ...headers });
    res.end(body);
  };
}

/** A host config with a workspace folder and a relay allow-list, and no providers. */
export function workspaceHostConfig({ dir, allow = [] }) {
  return { providers: [], workspace: { dir }, relay: { allow }, log: { level: 'debug' } };
}
