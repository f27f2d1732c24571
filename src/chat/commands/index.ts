import { ServiceError } from '../errors.js';
import { AGENTS, AGENT_IDS, type AgentId } from '../agents/catalog.js';
import { locateProgram } from '../agents/availability.js';
import type { ChatService } from '../chat-service.js';
import { validatePrompt } from '../prompt.js';
import type { ChatRuntime } from '../runtime.js';
import { prepareGoalCommand } from './goal-command.js';
import { prepareOrcCommand } from './orc-command.js';
import { answer, COMMANDS, usageError, type PreparedCommand } from './types.js';

export { COMMANDS, type CommandLine, type CommandSink, type PreparedCommand } from './types.js';

export interface CommandOptions {
  sessionId?: string;
  agent?: AgentId;
}

export function agentsOverview(service: ChatService, env: Readonly<Record<string, string | undefined>>) {
  return AGENT_IDS.map((id) => {
    const program = service.config.programs[id];
    const located = locateProgram(program, env.PATH);
    return {
      id,
      label: AGENTS[id].adapter.label,
      protocol: AGENTS[id].adapter.protocol,
      program: program.prefixArgs[0] ?? program.file,
      available: located !== undefined,
      default: id === service.config.defaultAgent,
    };
  });
}

/**
 * Parses and validates a slash command. Everything that can be refused is
 * refused here, before the response stream starts, as an ordinary error.
 */
export function prepareCommand(runtime: ChatRuntime, text: string, options: CommandOptions): PreparedCommand {
  const { service, env } = runtime;
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) throw new ServiceError('BAD_REQUEST', 'A command starts with "/" followed by its name, e.g. /help.');
  const [, name, rest = ''] = match;
  const argument = rest.trim();

  switch (name) {
    case 'help': {
      const lines = Object.values(COMMANDS).map((spec) => `${spec.usage} — ${spec.description}`);
      return answer(name, lines.join('\n'), { commands: Object.entries(COMMANDS).map(([command, spec]) => ({ command, ...spec })) });
    }
    case 'status': {
      const sessionId = service.resolveSession(options.sessionId);
      const queues = service.queueStatus();
      const agents = agentsOverview(service, env);
      const own = service.queueState(sessionId);
      const text = [
        `Session ${sessionId}: ${own.active ? `running ${own.activeTraceId}` : 'idle'}, ${own.pending} waiting.`,
        `Sessions with runs: ${queues.length}.`,
        `Agents: ${agents.map((agent) => `${agent.id}${agent.available ? '' : ' (not installed)'}`).join(', ')}; default ${service.config.defaultAgent}.`,
      ].join('\n');
      return answer(name, text, {
        sessionId,
        currentSessionId: service.store.currentSessionId(),
        queue: own,
        queues,
        agents,
        demo: service.config.demo,
      });
    }
    case 'agents': {
      const agents = agentsOverview(service, env);
      const text = agents
        .map(
          (agent) =>
            `${agent.id} — ${agent.label}, ${agent.available ? 'installed' : 'not installed'} (${agent.program})${agent.default ? ', default' : ''}`,
        )
        .join('\n');
      return answer(name, text, { agents });
    }
    case 'cancel': {
      if (argument) throw usageError(name);
      const sessionId = service.resolveSession(options.sessionId);
      return async (sink) => {
        const result = service.cancel(sessionId);
        const text = result.cancelled
          ? `Cancelled run ${result.traceId}.`
          : result.traceId
            ? `Run ${result.traceId} is already ending (it finished on its own or is being stopped); nothing to cancel.`
            : 'Nothing is running.';
        sink({ type: 'text', content: text });
        sink({ type: 'done', status: 'ok', command: name, data: { sessionId, ...result } });
      };
    }
    case 'steer': {
      if (!argument) throw usageError(name);
      const prompt = validatePrompt(argument);
      const sessionId = service.resolveSession(options.sessionId);
      return (sink) =>
        new Promise<void>((resolve) => {
          service.steer({ prompt, sessionId, agent: options.agent }, (line) => {
            sink(line);
            if (line.type === 'done') resolve();
          });
        });
    }
    case 'session':
      return prepareSessionCommand(service, argument);
    case 'goal':
      return prepareGoalCommand(runtime, argument, options);
    case 'orc':
      return prepareOrcCommand(runtime, argument, options);
    default:
      throw new ServiceError('BAD_REQUEST', `Unknown command /${name}; /help lists them.`, { details: { command: name } });
  }
}

function prepareSessionCommand(service: ChatService, argument: string): PreparedCommand {
  const [action = '', ...words] = argument.split(/\s+/).filter(Boolean);
  if (action === 'new') {
    return async (sink) => {
      const session = service.createSession(words.join(' '), true);
      sink({ type: 'text', content: `Switched to new session ${session.id}.` });
      sink({ type: 'done', status: 'ok', command: 'session', data: { action, session } });
    };
  }
  if (action === 'switch' && words.length === 1) {
    const session = service.store.getSession(service.resolveSession(words[0]));
    return async (sink) => {
      service.switchSession(words[0]);
      sink({ type: 'text', content: `Switched to session ${words[0]}${session?.title ? ` (${session.title})` : ''}.` });
      sink({ type: 'done', status: 'ok', command: 'session', data: { action, session } });
    };
  }
  if (action === 'list' && words.length === 0) {
    return async (sink) => {
      const sessions = service.store.listSessions();
      const currentSessionId = service.store.currentSessionId();
      const text = sessions
        .map(
          (session) =>
            `${session.id === currentSessionId ? '*' : ' '} ${session.id} ${session.title || '(untitled)'} — ${session.messageCount} messages`,
        )
        .join('\n');
      sink({ type: 'text', content: text });
      sink({ type: 'done', status: 'ok', command: 'session', data: { action, sessions, currentSessionId } });
    };
  }
  throw usageError('session');
}
