// The tab engine's action table (shared/tab_executor.js) takes a point as the
// model's [x, y] (read against the viewport by its coordinate mode) or as a
// CSS point already found in the page (an element's centre, a point on the
// chat model's last screenshot), kept inside the viewport either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execute } from '../../shared/tab_executor.js';

function env() {
  const mouse = [];
  return {
    mouse,
    viewport: { width: 1000, height: 500, pageX: 0, pageY: 0 },
    coordinateMode: 'normalized',
    platform: 'linux',
    currentUrl: async () => 'https://a.example/',
    async send(method, params) {
      if (method === 'Input.dispatchMouseEvent') mouse.push([params.type, params.x, params.y]);
      if (method === 'Runtime.evaluate') return { result: { value: 'button#send' } };
      return {};
    },
  };
}

test('a click at the model\'s [x, y] and at a CSS point lands where each says', async () => {
  const a = env();
  const r = await execute({ name: 'Click', args: { point: [999, 0] } }, a);
  assert.equal(r.text, 'clicked button#send at CSS (999,0)');
  assert.deepEqual(a.mouse[0], ['mouseMoved', 999, 0]);
  const b = env();
  await execute({ name: 'Click', args: { point: { x: 120.5, y: 40.25 } } }, b);
  assert.deepEqual(b.mouse.map((m) => m[0]), ['mouseMoved', 'mousePressed', 'mouseReleased']);
  assert.deepEqual(b.mouse[1].slice(1), [120.5, 40.25]);
  const c = env();
  await execute({ name: 'Hover', args: { point: { x: 5000, y: -3 } } }, c);
  assert.deepEqual(c.mouse[0].slice(1), [999, 0], 'kept inside the viewport');
});
