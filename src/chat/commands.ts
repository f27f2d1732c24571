import { ServiceError } from '../common/errors.js';
import { AGENTS, AGENT_IDS, type AgentId } from './agents/catalog.js';
import { locateProgram } from './agents/availability.js';
import type { ChatService, RunLine } from './chat-service.js';
import { validatePrompt } from './prompt.js';

/** A line of a command's stream: text for people, and a final done carrying structured `data`. */
export type CommandLine = RunLine | { type: 'text'; content: string } | { type: 'done'; status: 'ok'; command: string; data: Record<string, unknown> };
export type CommandSink = (line: CommandLine) => void;

/** Runs a validated command; resolves once its last line was written. */
export type PreparedCommand = (sink: CommandSink) => Promise<void>;

interface CommandSpec {
  readonly usage: string;
  readonly description: string;
}

/** The slash commands, as data: /help prints this table. */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  help: { usage: '/help', description: 'List the commands.' },
  status: { usage: '/status', description: 'Current session, running and waiting runs, agents.' },
  agents: { usage: '/agents', description: 'The agent programs and whether they are installed.' },
  cancel: { usage: '/cancel', description: "Stop the current session's active run; the queue moves on." },
  steer: { usage: '/steer <prompt>', description: 'Stop the active run, keep its partial answer, run <prompt> next.' },
  session: { usage: '/session new [title] | /session switch <id> | /session list', description: 'Create, switch or list chat sessions.' },
};

export interface CommandOptions {
  sessionId?: string;
  agent?: AgentId;
}

const usageError = (name: string) => new ServiceError('BAD_REQUEST', `Usage: ${COMMANDS[name].usage}`, { details: { command: name } });

/** One-shot answer: text lines then a done with data. */
const answer = (command: string, text: string, data: Record<string, unknown>): PreparedCommand => async (sink) => {
  sink({ type: 'text', content: text });
  sink({ type: 'done', status: 'ok', command, data });
};

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
export function prepareCommand(
  service: ChatService,
  env: Readonly<Record<string, string | undefined>>,
  text: string,
  options: CommandOptions,
): PreparedCommand {
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
      return answer(name, text, { sessionId, currentSessionId: service.store.currentSessionId(), queue: own, queues, agents, demo: service.config.demo });
    }
    case 'agents': {
      const agents = agentsOverview(service, env);
      const text = agents.map((agent) => `${agent.id} — ${agent.label}, ${agent.available ? 'installed' : 'not installed'} (${agent.program})${agent.default ? ', default' : ''}`).join('\n');
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
      const text = sessions.map((session) => `${session.id === currentSessionId ? '*' : ' '} ${session.id} ${session.title || '(untitled)'} — ${session.messageCount} messages`).join('\n');
      sink({ type: 'text', content: text });
      sink({ type: 'done', status: 'ok', command: 'session', data: { action, sessions, currentSessionId } });
    };
  }
  throw usageError('session');
}
