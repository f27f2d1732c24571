import type { SimRequest, SimResponse } from '../harness.js';
import { SIM_MODELS, type SimModel } from './catalog.js';
import { checkKey } from './access.js';
import { modelNotFound } from './status-errors.js';
import type { BetaState } from './state.js';

// `GET /v1beta/models` and `GET /v1beta/models/{MODEL}` on the key surface
// (contract §1): what a key may use; also how a key is checked before saving.

const describe = (model: SimModel) => ({
  name: `models/${model.id}`,
  version: '001',
  displayName: model.displayName,
  inputTokenLimit: 32768,
  outputTokenLimit: 32768,
  supportedGenerationMethods: ['generateContent', 'countTokens'],
});

export function registerModelsRoutes(state: BetaState): void {
  state.simulator.route('GET', '/v1beta/models', (request: SimRequest, response: SimResponse) => {
    const problem = checkKey(state, request);
    if (problem) return response.json(problem.status, problem.body);
    return response.json(200, { models: SIM_MODELS.map(describe) });
  });
  state.simulator.route('GET', '/v1beta/models/:model', (request: SimRequest, response: SimResponse) => {
    const problem = checkKey(state, request);
    if (problem) return response.json(problem.status, problem.body);
    const model = SIM_MODELS.find((candidate) => candidate.id === request.params.model);
    if (!model) {
      const missing = modelNotFound('key', request.params.model, `models/${request.params.model}`);
      return response.json(missing.status, missing.body);
    }
    return response.json(200, describe(model));
  });
}
