import type { ChatService } from './chat-service.js';
import type { GoalService } from './goals/goal-service.js';
import type { Orchestrator } from './orchestration/orchestrator.js';

/** What routes and commands act on: the run queue, the goal, the orchestration, and the environment. */
export interface ChatRuntime {
  readonly service: ChatService;
  readonly goals: GoalService;
  readonly orchestrator: Orchestrator;
  readonly env: Readonly<Record<string, string | undefined>>;
}
