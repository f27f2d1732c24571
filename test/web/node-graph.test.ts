import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NodeRecord, VersionedGraph } from '../../src/studio/api/index.js';
import { keepPageOnFailure, launchBrowser, screenshot, startDemoStudio, type DemoStudio } from './helpers.js';

// The Node view in chromium against a demo studio: a session made and a root
// and a child edit built by clicks, surviving a reload; moves saved and
// undone; a graph changed elsewhere (a forced 412) resolved both ways.

/** Records whether a partial render was ever shown on a node (it is gone once the image arrives). */
const PARTIAL_RECORDER = `
  window.__partials = 0;
  new MutationObserver(() => {
    if (document.querySelector('.graph-node img[data-partial]')) window.__partials += 1;
  }).observe(document, { subtree: true, childList: true });
`;

let studio: DemoStudio;
let browser: Browser;
let page: Page;
let sessionId: string;

const graphOf = async (): Promise<VersionedGraph> =>
  (await (await fetch(`${studio.url}/api/sessions/${sessionId}/graph`)).json()) as VersionedGraph;

/** A save from another client (a second tab, a script): the whole snapshot against a version. */
async function saveElsewhere(change: (graph: VersionedGraph) => Omit<VersionedGraph, 'version'>): Promise<number> {
  const current = await graphOf();
  const response = await fetch(`${studio.url}/api/sessions/${sessionId}/graph`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'if-match': `"${current.version}"` },
    body: JSON.stringify(change(current)),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { version: number }).version;
}

const record = async (requestId: string): Promise<{ finishedAt: string | null }> =>
  (await (await fetch(`${studio.url}/api/jobs/${requestId}`)).json()) as { finishedAt: string | null };

const savedVersion = async (): Promise<number> => {
  await page.locator('.graph-status[data-saved="true"]').waitFor();
  return Number(await page.locator('.graph-status').getAttribute('data-version'));
};

/** Drags a node by its card. */
async function drag(nodeId: string, dx: number, dy: number): Promise<void> {
  const box = await page.locator(`.graph-node[data-node-id="${nodeId}"] .graph-node-prompt`).boundingBox();
  if (!box) throw new Error(`node ${nodeId} is not on screen`);
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 5 });
  await page.mouse.move(x + dx, y + dy, { steps: 5 });
  await page.mouse.up();
}

/**
 * Selects a node by a click on its prompt and deletes it with the Delete key, and again when it is
 * still there a moment later: on a busy machine a click can land while the canvas re-renders and
 * leave nothing selected (a full run timed out waiting for the node to go, twice).
 */
async function deleteWithKey(selector: string): Promise<void> {
  const node = page.locator(selector);
  for (let attempt = 1; ; attempt += 1) {
    if ((await node.count()) === 0) return;
    await node.locator('.graph-node-prompt').click({ timeout: 10_000 });
    await page.keyboard.press('Delete');
    try {
      await node.waitFor({ state: 'detached', timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt === 4) throw error;
    }
  }
}

async function startNode(button: '.node-new-root' | '.node-child', prompt: string): Promise<string> {
  const before = new Set(await page.locator('.graph-node').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node-id'))));
  await page.fill('#node-prompt', prompt);
  await page.click(button);
  // A node whose id was not there before (counting nodes is not enough: a re-render can swap one in the meantime).
  const id = await page.waitForFunction(
    (known) =>
      Array.from(document.querySelectorAll('.graph-node'), (node) => node.getAttribute('data-node-id')).find(
        (candidate) => candidate && !known.includes(candidate),
      ),
    [...before].filter((known): known is string => known !== null),
  );
  return (await id.jsonValue()) as string;
}

/** Waits for a started node to get its image; answers its node id (the server's, which replaces the requestId). */
async function finished(requestId: string, prompt: string): Promise<string> {
  const card = page.locator('.graph-node[data-state="ready"]', { hasText: prompt });
  await card.locator('img[data-final]').waitFor({ timeout: 30_000 });
  await page.waitForFunction((text) => {
    const node = Array.from(document.querySelectorAll<HTMLElement>('.graph-node[data-state="ready"]')).find((candidate) =>
      candidate.textContent?.includes(text),
    );
    const image = node?.querySelector<HTMLImageElement>('img[data-final]');
    return image !== null && image !== undefined && image.complete && image.naturalWidth > 0;
  }, prompt);
  const nodeId = (await card.getAttribute('data-node-id')) as string;
  expect(nodeId).not.toBe(requestId);
  return nodeId;
}

beforeAll(async () => {
  studio = await startDemoStudio();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.addInitScript(PARTIAL_RECORDER);
}, 120_000);

beforeEach(() => keepPageOnFailure(() => page, 'node-graph'));

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

describe('the Node view in chromium', () => {
  let root: string;
  let child: string;

  it('creates a session, builds a root and a child edit by clicks, with live phases and a partial on the node', async () => {
    await page.goto(`${studio.url}/node`);
    await page.waitForSelector('body[data-connection="open"]');
    await page.click('.session-new');
    await page.fill('#node-session-title', 'Fox family');
    await page.click('.session-title-form button[type="submit"]');
    await page.waitForFunction(() => window.location.hash.length > 1);
    sessionId = decodeURIComponent(new URL(page.url()).hash.slice(1));
    await page.locator('.graph-status[data-version="1"]').waitFor();
    expect(await page.locator('#node-session option:checked').textContent()).toContain('Fox family');

    const rootRequest = await startNode('.node-new-root', 'a red fox in the snow');
    const running = page.locator(`.graph-node[data-node-id="${rootRequest}"]`);
    expect(await running.getAttribute('data-state')).toBe('running');
    // The pending node is saved at once: a reload mid-run keeps it.
    await page.waitForFunction(
      async ([url]) => ((await (await fetch(url)).json()) as { nodes: unknown[] }).nodes.length === 1,
      [`${studio.url}/api/sessions/${sessionId}/graph`],
    );
    await running.locator('.graph-node-phase').waitFor();
    root = await finished(rootRequest, 'a red fox in the snow');
    expect(await page.evaluate(() => (window as unknown as { __partials: number }).__partials)).toBeGreaterThan(0);

    // Select the root (a click), then generate a child edit of its image.
    await page.locator(`.graph-node[data-node-id="${root}"] .graph-node-prompt`).click();
    await page.locator(`.node-parent[data-parent="${root}"]`).waitFor();
    const childRequest = await startNode('.node-child', 'the fox at night');
    child = await finished(childRequest, 'the fox at night');
    await page.locator(`.react-flow__edge[data-id="edit-${child}"]`).waitFor({ state: 'attached' });
    await savedVersion();

    const graph = await graphOf();
    expect(graph.nodes.map((node) => node.id).sort()).toEqual([root, child].sort());
    expect(graph.edges).toEqual([{ id: `edit-${child}`, source: root, target: child, kind: 'edit' }]);
    const childNode = graph.nodes.find((node) => node.id === child);
    expect(childNode?.data).toMatchObject({
      prompt: 'the fox at night',
      filename: expect.any(String),
      url: expect.stringMatching(/^\/generated\//),
    });
    expect(childNode?.position.y).toBeGreaterThan(graph.nodes.find((node) => node.id === root)?.position.y ?? Infinity);
    // The node ids are the server's: the child is an edit of the root.
    const record = (await (await fetch(`${studio.url}/api/node/${child}`)).json()) as NodeRecord;
    expect(record).toMatchObject({
      operation: 'edit',
      parentNodeId: root,
      prompt: 'the fox at night',
      session: { id: sessionId, title: 'Fox family' },
    });
    expect(await page.locator(`.graph-node[data-node-id="${child}"] .graph-node-lane`).textContent()).toBeTruthy();
    await screenshot(page, 'node');
  });

  it('survives a reload: the same session, nodes, images and edge', async () => {
    await page.reload();
    await page.locator(`.graph-node[data-node-id="${child}"][data-state="ready"] img[data-final]`).waitFor();
    expect(await page.locator(`.graph-node[data-node-id="${root}"] img[data-final]`).count()).toBe(1);
    await page.locator(`.react-flow__edge[data-id="edit-${child}"]`).waitFor({ state: 'attached' });
    expect(await page.locator('.graph-node').count()).toBe(2);
    expect(decodeURIComponent(new URL(page.url()).hash.slice(1))).toBe(sessionId);
  });

  it('a node whose image was deleted from history says so and restores it (issue 46)', async () => {
    const node = (await graphOf()).nodes.find((candidate) => candidate.id === root) as { data: { filename?: string } };
    const filename = node.data.filename as string;
    expect((await fetch(`${studio.url}/api/history/${encodeURIComponent(filename)}`, { method: 'DELETE' })).status).toBe(200);
    // Another browser (this page's cache keeps the image: its files are immutable).
    const fresh = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    try {
      await fresh.goto(`${studio.url}/node#${sessionId}`);
      const card = fresh.locator(`.graph-node[data-node-id="${root}"]`);
      await card.locator('.graph-node-missing').waitFor();
      expect(await card.locator('img[data-final]').count()).toBe(0);
      await card.locator('.graph-node-missing button', { hasText: 'Restore' }).click();
      await card.locator('img[data-final]').waitFor();
      await fresh.waitForFunction((id) => {
        const image = document.querySelector<HTMLImageElement>(`.graph-node[data-node-id="${id}"] img[data-final]`);
        return image !== null && image.complete && image.naturalWidth > 0;
      }, root);
    } finally {
      await fresh.close();
    }
    expect(
      ((await (await fetch(`${studio.url}/api/history/${encodeURIComponent(filename)}`)).json()) as { filename: string }).filename,
    ).toBe(filename);
  });

  it('keeps a running node across a reload, and one that ended while the view was closed: both get their image', async () => {
    // The node's own button makes it the parent and puts the cursor in the prompt.
    await page.locator(`.graph-node[data-node-id="${child}"] .graph-node-child`).click();
    await page.locator(`.node-parent[data-parent="${child}"]`).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('node-prompt');
    const slowRequest = await startNode('.node-child', '[sim:slow=4000] the fox at dawn');
    await page.locator('.graph-status[data-saved="true"]').waitFor();
    // The studio holds the running node (saved under its requestId) before the reload.
    const held = (await graphOf()).nodes.find((node) => node.id === slowRequest);
    expect(held?.data).toMatchObject({ status: 'running', requestId: slowRequest, prompt: '[sim:slow=4000] the fox at dawn' });
    // The page saves the node as soon as it sends the job: on a loaded machine the studio may not have accepted it yet.
    for (
      const started = Date.now();
      (await fetch(`${studio.url}/api/jobs/${slowRequest}`)).status !== 200 && Date.now() - started < 10_000;
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await record(slowRequest)).finishedAt).toBeNull();
    await page.reload();
    const dawn = await finished(slowRequest, 'the fox at dawn');
    await page.locator(`.react-flow__edge[data-id="edit-${dawn}"]`).waitFor({ state: 'attached' });

    const awayRequest = await startNode('.node-new-root', '[sim:slow=1500] a hare while nobody looks');
    await page.locator('.graph-status[data-saved="true"]').waitFor();
    await page.click('nav a[href="/history"]');
    await page.waitForFunction(
      async ([url]) => ((await (await fetch(url)).json()) as { state: string }).state === 'succeeded',
      [`${studio.url}/api/jobs/${awayRequest}`],
    );
    await page.click('nav a[href="/node"]');
    const hare = await finished(awayRequest, 'a hare while nobody looks');
    await savedVersion();
    const graph = await graphOf();
    expect(graph.nodes.map((node) => node.id)).toEqual(expect.arrayContaining([dawn, hare]));
    expect(graph.nodes.some((node) => node.data?.status === 'running')).toBe(false);

    // Back to the root and the child only, for the tests below.
    for (const id of [dawn, hare]) {
      await page.locator(`.graph-node[data-node-id="${id}"] .graph-node-prompt`).click();
      await page.keyboard.press('Delete');
      await page.locator(`.graph-node[data-node-id="${id}"]`).waitFor({ state: 'detached' });
    }
    await savedVersion();
    expect((await graphOf()).nodes.map((node) => node.id).sort()).toEqual([root, child].sort());
  }, 60_000);

  it('saves a move with If-Match, and undoes and redoes it from the keyboard', async () => {
    const before = await savedVersion();
    const start = (await graphOf()).nodes.find((node) => node.id === child)?.position;
    await drag(child, 160, 40);
    await page.waitForFunction(
      (version) => document.querySelector('.graph-status[data-saved="true"]')?.getAttribute('data-version') === String(version + 1),
      before,
    );
    const moved = (await graphOf()).nodes.find((node) => node.id === child)?.position;
    expect(moved?.x).toBeGreaterThan((start?.x ?? 0) + 50);

    await page.keyboard.press('Control+z');
    await page.waitForFunction(
      (version) => document.querySelector('.graph-status[data-saved="true"]')?.getAttribute('data-version') === String(version + 2),
      before,
    );
    expect((await graphOf()).nodes.find((node) => node.id === child)?.position).toEqual(start);
    await page.keyboard.press('Control+Shift+z');
    await page.waitForFunction(
      (version) => document.querySelector('.graph-status[data-saved="true"]')?.getAttribute('data-version') === String(version + 3),
      before,
    );
    expect((await graphOf()).nodes.find((node) => node.id === child)?.position).toEqual(moved);
  });

  it('a stale save shows the conflict; "reload" takes the studio version', async () => {
    const theirs = await saveElsewhere((graph) => ({
      nodes: [
        ...graph.nodes,
        { id: 'from-elsewhere', type: 'image', position: { x: -400, y: 0 }, data: { prompt: 'a node added elsewhere' } },
      ],
      edges: graph.edges,
    }));
    await drag(root, -60, 30);
    const dialog = page.locator('dialog.graph-conflict[open]');
    await dialog.waitFor();
    expect(await dialog.locator(`[data-their-version="${theirs}"]`).count()).toBe(1);
    expect(await dialog.locator('.conflict-theirs').textContent()).toContain('a node added elsewhere');
    expect(await page.locator('.graph-status').getAttribute('data-saved')).toBe('false');
    await screenshot(page, 'node-conflict');

    await dialog.locator('.conflict-reload').click();
    await page.locator('dialog.graph-conflict[open]').waitFor({ state: 'detached' });
    await page.locator('.graph-node[data-node-id="from-elsewhere"]').waitFor();
    expect(await savedVersion()).toBe(theirs);
    // Nothing was written over the studio's version.
    const graph = await graphOf();
    expect(graph.version).toBe(theirs);
    expect(graph.nodes.map((node) => node.id).sort()).toEqual([root, child, 'from-elsewhere'].sort());
  });

  it('a stale save shows the conflict; "overwrite" saves this page over it', async () => {
    const theirs = await saveElsewhere((graph) => ({
      nodes: [
        ...graph.nodes,
        { id: 'second-elsewhere', type: 'image', position: { x: -800, y: 0 }, data: { prompt: 'a second outside change' } },
      ],
      edges: graph.edges,
    }));
    await drag(child, 80, 0);
    const dialog = page.locator('dialog.graph-conflict[open]');
    await dialog.waitFor();
    expect(await dialog.locator('.conflict-theirs').textContent()).toContain('a second outside change');
    await dialog.locator('.conflict-overwrite').click();
    await page.locator('dialog.graph-conflict[open]').waitFor({ state: 'detached' });
    expect(await savedVersion()).toBe(theirs + 1);
    const graph = await graphOf();
    expect(graph.version).toBe(theirs + 1);
    expect(graph.nodes.map((node) => node.id).sort()).toEqual([root, child, 'from-elsewhere'].sort());
    expect(await page.locator('.graph-node[data-node-id="second-elsewhere"]').count()).toBe(0);
  });

  it('shows a refused node with the studio error on it, kept until deleted', async () => {
    // A lane locked by its plan refuses every time (one whose health is probed could be down at the
    // listing and up again when the job is sent).
    const providers = (await (await fetch(`${studio.url}/api/providers`)).json()) as { providers: Array<{ id: string; state: string }> };
    const locked = providers.providers.find((lane) => lane.state === 'locked');
    expect(locked).toBeDefined();
    await page.selectOption('#node-lane', locked!.id);
    const refused = await startNode('.node-new-root', 'a node on a lane that cannot run');
    const card = page.locator(`.graph-node[data-node-id="${refused}"][data-state="failed"]`);
    await card.locator('.graph-node-error').waitFor();
    expect(await card.locator('.graph-node-error').getAttribute('data-code')).toBeTruthy();
    await page.selectOption('#node-lane', 'auto');
    await savedVersion();
    expect((await graphOf()).nodes.find((node) => node.id === refused)?.data).toMatchObject({
      status: 'failed',
      error: { code: expect.any(String) },
    });
    await deleteWithKey(`.graph-node[data-node-id="${refused}"]`);
    // F fits the view: every node is on screen again.
    await page.keyboard.press('f');
    await page.waitForFunction(() => {
      const pane = document.querySelector('.react-flow')!.getBoundingClientRect();
      return Array.from(document.querySelectorAll('.graph-node')).every((node) => {
        const box = node.getBoundingClientRect();
        return box.left >= pane.left - 1 && box.right <= pane.right + 1 && box.top >= pane.top - 1 && box.bottom <= pane.bottom + 1;
      });
    });
  }, 90_000);

  it('deletes the selected node with the Delete key (its edges go too), and renames the session', async () => {
    await page.keyboard.press('f');
    await deleteWithKey('.graph-node[data-node-id="from-elsewhere"]');
    await savedVersion();
    expect((await graphOf()).nodes.map((node) => node.id).sort()).toEqual([root, child].sort());

    await page.click('.session-rename');
    await page.fill('#node-session-title', 'Fox family, renamed');
    await page.click('.session-title-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#node-session option:checked')?.textContent?.includes('renamed'));
  }, 90_000);

  it('lays out at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.keyboard.press('f');
    await page.locator(`.graph-node[data-node-id="${child}"]`).waitFor();
    await screenshot(page, 'node-phone', { fullPage: true });
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('opens a graph of 400 nodes rendering only the visible ones, and draws others as the view pans', async () => {
    const created = (await (await studio.post('/api/sessions', { title: 'A large graph' })).json()) as { id: string };
    const nodes = Array.from({ length: 400 }, (_, index) => ({
      id: `n${index}`,
      type: 'image',
      position: { x: (index % 20) * 280, y: Math.floor(index / 20) * 380 },
      data: { prompt: `node ${index}` },
    }));
    const edges = nodes
      .slice(20)
      .map((node, index) => ({ id: `edit-${node.id}`, source: nodes[index].id, target: node.id, kind: 'edit' as const }));
    const put = await fetch(`${studio.url}/api/sessions/${created.id}/graph`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': '"1"' },
      body: JSON.stringify({ nodes, edges }),
    });
    expect(put.status).toBe(200);
    await page.goto(`${studio.url}/node#${created.id}`);
    await page.locator('.graph-status[data-version="2"]').waitFor();
    await page.locator('.graph-node').first().waitFor();
    const visible = async () => page.locator('.graph-node').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-node-id')));
    const first = await visible();
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(100);
    // Pan (a drag on the pane, between two nodes of a row): other nodes are drawn, the ones left behind are not.
    const index = first
      .map((id) => Number(id?.slice(1)))
      .find((candidate) => candidate % 20 !== 19 && first.includes(`n${candidate + 1}`)) as number;
    const left = (await page.locator(`.graph-node[data-node-id="n${index}"]`).boundingBox())!;
    const right = (await page.locator(`.graph-node[data-node-id="n${index + 1}"]`).boundingBox())!;
    const start = { x: (left.x + left.width + right.x) / 2, y: left.y + left.height / 2 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    await page.mouse.move(start.x - 500, start.y - 300, { steps: 8 });
    await page.mouse.up();
    await page.waitForFunction(
      (before) =>
        Array.from(document.querySelectorAll('.graph-node')).some((card) => !before.includes(card.getAttribute('data-node-id') ?? '')),
      first,
    );
    expect((await visible()).length).toBeLessThan(100);
    // Panning is not a change of the graph: nothing was saved.
    expect(await page.locator('.graph-status').getAttribute('data-version')).toBe('2');
    await page.goto(`${studio.url}/node#${encodeURIComponent(sessionId)}`);
    await page.locator('.graph-node').first().waitFor();
  });

  it('a save the studio refuses says so with its code and keeps the change to try again', async () => {
    const created = (await (await studio.post('/api/sessions', { title: 'Deleted elsewhere' })).json()) as { id: string };
    const put = await fetch(`${studio.url}/api/sessions/${created.id}/graph`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': '"1"' },
      body: JSON.stringify({
        nodes: [{ id: 'lonely', type: 'image', position: { x: 0, y: 0 }, data: { prompt: 'a lonely node' } }],
        edges: [],
      }),
    });
    expect(put.status).toBe(200);
    await page.goto(`${studio.url}/node#${created.id}`);
    await page.locator('.graph-node[data-node-id="lonely"]').waitFor();
    expect((await fetch(`${studio.url}/api/sessions/${created.id}`, { method: 'DELETE' })).status).toBe(200);
    await drag('lonely', 100, 0);
    await page.locator('.graph-status[data-saved="false"] code', { hasText: 'SESSION_NOT_FOUND' }).waitFor();
    await page.locator('.graph-retry-save').waitFor();
    await page.goto(`${studio.url}/node#${encodeURIComponent(sessionId)}`);
    await page.locator('.graph-node').first().waitFor();
  });

  it('deletes a session after asking; its images stay in history', async () => {
    await page.click('.session-delete');
    await page.click('.session-delete-yes');
    // The newest session left opens instead.
    await page.waitForFunction((id) => decodeURIComponent(window.location.hash.slice(1)) !== id, sessionId);
    expect(await page.locator('#node-session option', { hasText: 'Fox family' }).count()).toBe(0);
    const response = await fetch(`${studio.url}/api/sessions/${sessionId}`);
    expect(response.status).toBe(404);
    const history = (await (await fetch(`${studio.url}/api/history?sessionId=${sessionId}`)).json()) as { items: unknown[] };
    // Every node image of the session, also of the nodes deleted from the graph.
    expect(history.items.length).toBe(4);
  });
});
