import { ALPHA_TRIGGER_NAMES } from './alpha/triggers.js';
import { VIDEO_TRIGGER_NAMES } from './alpha/video-triggers.js';
import { BETA_TRIGGER_NAMES } from './beta/triggers.js';
import { DELTA_TRIGGERS } from './delta/generation-route.js';
import { EPSILON_TRIGGERS } from './epsilon/routes.js';
import { FLOW_TRIGGERS } from './flow/executor.js';
import { GAMMA_TRIGGERS } from './gamma/triggers.js';
import { TRIGGER_NAMES } from './responses/triggers.js';
import { DEMO_REJECTED_KEY_MARK } from './suite.js';
import { MCP_SIM_TRIGGERS } from './zeta/tasks.js';

// What a demo user can script (prompt-triggers.ts: `[sim:name]` in a prompt)
// and the rule that makes a key fail, gathered from each simulator's own
// declarations so the list cannot drift: the studio answers it at
// GET /api/demo in demo mode, and the web UI's demo badge shows it.

export interface DemoGuide {
  /** How a trigger is written. */
  readonly syntax: string;
  /** The triggers each simulator knows, by the lanes (or media) it stands behind. */
  readonly triggers: Readonly<Record<string, readonly string[]>>;
  /** Which keys the demo refuses. */
  readonly rejectedKey: { readonly contains: string; readonly rule: string };
}

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
