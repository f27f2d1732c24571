import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionBody } from '../../src/studio/api/index.js';
import { makeTempHome } from '../helpers/studio.js';
import { startSvc, type RunningSvc } from '../helpers/svc.js';
import { node } from './helpers.js';

// The compare-and-swap holds across processes too: two `svc serve` processes
// on one SVC_HOME (one database) take saves of the same session at once.
// Within one process requests cannot interleave inside a save; between two
// they can, and only the one immediate transaction keeps the winner single.

const home = makeTempHome('svc-graph-race-');
const studios: RunningSvc[] = [];
const urls: string[] = [];

beforeAll(async () => {
  for (let index = 0; index < 2; index += 1) {
    // Two studios on one state dir on purpose: without --shared-home the second refuses (the state-dir lock).
    const studio = await startSvc(['serve', '--port', '0', '--shared-home', '--json'], { SVC_HOME: home });
    studios.push(studio);
    urls.push(String(studio.first.url));
  }
});
afterAll(async () => {
  for (const studio of studios) await studio.stop();
  rmSync(home, { recursive: true, force: true });
});

const put = (url: string, id: string, version: number, graph: unknown) =>
  fetch(`${url}/api/sessions/${id}/graph`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'if-match': `"${version}"` },
    body: JSON.stringify(graph),
  });

describe('two studios on one database', () => {
  it('of saves from the same version sent to both at once, exactly one wins, round after round', async () => {
    const created = await fetch(`${urls[0]}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Shared' }),
    });
    const { id } = (await created.json()) as SessionBody;
    for (let version = 1; version <= 3; version += 1) {
      // Big enough snapshots that reading, checking and writing one takes a moment.
      const contenders = Array.from({ length: 12 }, (_, index) => ({
        nodes: Array.from({ length: 200 }, (__, n) => node(`v${version}-c${index}-n${n}`, n, index)),
        edges: [],
      }));
      const answers = await Promise.all(contenders.map((graph, index) => put(urls[index % 2], id, version, graph)));
      const statuses = answers.map((answer) => answer.status);
      expect(
        statuses.filter((status) => status === 200),
        `round ${version}: ${statuses.join(' ')}`,
      ).toHaveLength(1);
      expect(statuses.filter((status) => status === 412)).toHaveLength(contenders.length - 1);
      const winner = contenders[statuses.indexOf(200)];
      // Both processes read the one stored winner.
      for (const url of urls) {
        const loaded = (await (await fetch(`${url}/api/sessions/${id}`)).json()) as SessionBody;
        expect(loaded.version).toBe(version + 1);
        expect(loaded.graph.nodes[0].id).toBe(winner.nodes[0].id);
      }
    }
  });
});
