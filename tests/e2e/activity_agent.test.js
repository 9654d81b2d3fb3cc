// An agent task in the activity log: the Side Panel (opened as a tab) runs a
// one-step task against the scripted model; the Activity view then shows it
// as one entry (its text redacted, its steps, how it ended, its page) whose
// "Open the conversation" opens the panel on that task's conversation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EXTENSION_ORIGIN, launch, waitFor } from './lib/harness.js';
import { serve } from './lib/server.js';
import { startModelServer } from './lib/model_server.js';
import { TARGET_HTML, openPanelAndTarget, outcome, runTask, storeSettings } from './lib/agent_fixture.js';

let env;
let site;
before(async () => {
  site = await serve({ routes: { '/target.html': { body: TARGET_HTML } } });
  env = await launch({ host: false, grantOrigins: ['http://127.0.0.1/*'] });
});
after(async () => {
  await env?.close();
  await site?.close();
});

test('a finished agent task is one activity entry with its steps, outcome, page and a link to its conversation', async () => {
  const { panel, target } = await openPanelAndTarget(env, site.url('/target.html'));
  const model = await startModelServer(() => ({ content: "<think>done</think><action>Finished(content='all set')</action>" }));
  try {
    await storeSettings(panel, { maxSteps: 5, temperature: 0, requestTimeoutMs: 10000, retryBaseMs: 20, retryMaxMs: 200, apiUrl: model.url, model: 'venus-test' });
    await runTask(panel, 'Check the page, my password=hunter2-hunter2');
    assert.equal((await outcome(panel)).outcome, 'finished');
    const conversation = await panel.evaluate(() => document.getElementById('conversation').value);
    // Another conversation becomes the active one: the link must still open the task's.
    await panel.click('#new-conversation');
    await waitFor(async () => (await panel.evaluate(() => document.getElementById('conversation').value)) !== conversation, { what: 'a new conversation' });

    const page = await env.openOptions('#activity');
    const entry = page.locator('#activity-list li.entry[data-outcome="task"]');
    await waitFor(async () => (await entry.count()) === 1, { what: 'the task entry' });
    assert.equal(await entry.locator('.pill').textContent(), 'task · finished');
    assert.match(await entry.locator('.task-text').textContent(), /^Check the page, my password=\[redacted\]$/);
    assert.match(await entry.locator('.meta').textContent(), new RegExp(`127\\.0\\.0\\.1:${new URL(site.origin).port} · 1 step$`));
    await entry.locator('summary').click();
    assert.match(await entry.locator('.decision').textContent(), /finished after 1 step/);
    assert.match(await entry.locator('.task-result').textContent(), /all set/);
    const [opened] = await Promise.all([
      env.context.waitForEvent('page', { predicate: (p) => p.url().startsWith(`${EXTENSION_ORIGIN}agent/panel/sidepanel.html?conversation=`) }),
      entry.getByRole('link', { name: 'Open the conversation' }).click(),
    ]);
    await opened.waitForSelector('body[data-ready="true"]');
    assert.equal(await opened.evaluate(() => document.getElementById('conversation').value), conversation);
    await opened.close();
    await page.close();
  } finally {
    await model.close();
    await panel.close();
    await target.close();
  }
});
