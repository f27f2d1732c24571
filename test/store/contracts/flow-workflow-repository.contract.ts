import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FlowWorkflow } from '../../../src/studio/api/flow.js';
import type { FlowWorkflowRepository } from '../../../src/studio/store/repositories.js';
import { SAMPLE_WORKFLOW } from '../../../src/demo/sample-workflow.js';
import type { MakeStore, StoreHarness } from './harness.js';

// The FlowWorkflowRepository contract: workflows by id, an id taken once,
// a replacement that keeps the first registration's time. Every answer is
// awaited, so a store that answers late runs the same suite.

const workflow = (id: string, overrides: Partial<FlowWorkflow> = {}): FlowWorkflow => ({
  id,
  label: `workflow ${id}`,
  origin: 'http://127.0.0.1:8188',
  mediaKind: 'image',
  graph: JSON.parse(JSON.stringify(SAMPLE_WORKFLOW.graph)) as FlowWorkflow['graph'],
  bind: { ...SAMPLE_WORKFLOW.bind } as FlowWorkflow['bind'],
  params: [],
  createdAt: 1000,
  updatedAt: 1000,
  ...overrides,
});

export function describeFlowWorkflowRepositoryContract(name: string, makeStore: MakeStore): void {
  describe(`FlowWorkflowRepository contract: ${name}`, () => {
    let harness: StoreHarness;
    let workflows: FlowWorkflowRepository;
    beforeEach(async () => {
      harness = await makeStore();
      workflows = harness.store.flowWorkflows;
    });
    afterEach(() => harness.close());

    it('answers a workflow as inserted, lists them by id, and takes an id once', async () => {
      expect(await workflows.insert(workflow('zeta'))).toBe(true);
      expect(await workflows.insert(workflow('alpha'))).toBe(true);
      expect(await workflows.insert(workflow('alpha', { label: 'second' }))).toBe(false);
      expect(await workflows.get('alpha')).toEqual(workflow('alpha'));
      expect(await workflows.get('nope')).toBeUndefined();
      expect((await workflows.list()).map((entry) => entry.id)).toEqual(['alpha', 'zeta']);
    });

    it('replaces a workflow keeping when it was first registered, and deletes it once', async () => {
      await workflows.insert(workflow('alpha'));
      const replaced = await workflows.replace(workflow('alpha', { label: 'new', createdAt: 5000, updatedAt: 5000 }));
      expect(replaced).toMatchObject({ label: 'new', createdAt: 1000, updatedAt: 5000 });
      expect(await workflows.get('alpha')).toEqual(replaced);
      expect(await workflows.replace(workflow('beta'))).toEqual(workflow('beta'));
      expect(await workflows.delete('alpha')).toBe(true);
      expect(await workflows.delete('alpha')).toBe(false);
      expect((await workflows.list()).map((entry) => entry.id)).toEqual(['beta']);
    });
  });
}
