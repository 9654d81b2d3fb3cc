// A tiny static web server on 127.0.0.1 for end-to-end tests: serves a
// directory (default tests/e2e/fixtures) plus optional in-memory routes. Pages
// are reached at http://127.0.0.1:<port>/..., an origin the tests pre-grant to
// the extension ('http://127.0.0.1/*' covers every port).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { REPO } from './harness.js';

/** Default directory of test pages (chat.html, …). */
export const FIXTURES = path.join(REPO, 'tests', 'e2e', 'fixtures');

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8',
};

/**
 * Starts the server. `routes` maps a path ('/x.html') to {type, body} or to a
 * function (req, res). Returns {origin, url(path), requests, close()}.
 * `requests` records every request path, for tests that check what was fetched.
 */
export async function serve({ dir = FIXTURES, routes = {} } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    requests.push(url.pathname);
    const route = routes[url.pathname];
    if (typeof route === 'function') return route(req, res);
    if (route) {
      res.writeHead(200, { 'content-type': route.type || 'text/html; charset=utf-8' });
      return res.end(route.body);
    }
    const file = path.join(dir, path.normalize(url.pathname).replace(/^(\.\.[/\\])+/, ''));
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return {
    origin,
    requests,
    url: (p = '/') => origin + p,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}
