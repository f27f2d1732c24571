import { ALPHA_TRIGGER_NAMES } from '../sim/alpha/triggers.js';
import { VIDEO_TRIGGER_NAMES } from '../sim/alpha/video-triggers.js';
import { BETA_TRIGGER_NAMES } from '../sim/beta/triggers.js';
import { DELTA_TRIGGERS } from '../sim/delta/generation-route.js';
import { EPSILON_TRIGGERS } from '../sim/epsilon/routes.js';
import { FLOW_TRIGGERS } from '../sim/flow/executor.js';
import { GAMMA_TRIGGERS } from '../sim/gamma/triggers.js';
import { TRIGGER_NAMES } from '../sim/responses/triggers.js';
import { DEMO_REJECTED_KEY_MARK } from '../sim/suite.js';
import { MCP_SIM_TRIGGERS } from '../sim/zeta/tasks.js';
import type { DemoGuide } from '../studio/api/index.js';

// What a demo user can script (sim/prompt-triggers.ts: `[sim:name]` in a prompt)
// and the rule that makes a key fail, gathered from each simulator's own
// declarations so the list cannot drift: the studio answers it at
// GET /api/demo in demo mode, and the web UI's demo badge shows it.

export const DEMO_GUIDE: DemoGuide = {
  syntax: '[sim:<name>] or [sim:<name>=<number>] anywhere in the prompt',
  triggers: {
    'api, oauth': TRIGGER_NAMES,
    'alpha, alpha-api (images)': ALPHA_TRIGGER_NAMES,
    'alpha (video)': VIDEO_TRIGGER_NAMES,
    'beta-api': BETA_TRIGGER_NAMES,
    gamma: GAMMA_TRIGGERS,
    delta: DELTA_TRIGGERS,
    epsilon: EPSILON_TRIGGERS,
    flow: FLOW_TRIGGERS,
    'zeta, eta': MCP_SIM_TRIGGERS,
  },
  rejectedKey: {
    contains: DEMO_REJECTED_KEY_MARK,
    rule: `A key or token with "${DEMO_REJECTED_KEY_MARK}" in it (any case) is refused, as a wrong key would be; any other key is accepted.`,
  },
};
