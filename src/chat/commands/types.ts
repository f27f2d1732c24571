import { ServiceError } from '../errors.js';
import type { RunLine } from '../chat-service.js';

/** A line of a command's stream: text for people, and a final done carrying structured `data`. */
export type CommandLine =
  RunLine | { type: 'text'; content: string } | { type: 'done'; status: 'ok'; command: string; data: Record<string, unknown> };
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
  goal: {
    usage:
      '/goal [show] | /goal set [--replace] <objective> | /goal refine <objective> | /goal update <summary> [| next: <action>] [| evidence: <item>; <item>] | ' +
      '/goal pause [reason] | /goal resume | /goal done | /goal cancel | /goal clear | /goal history',
    description: 'The goal the agent keeps working on across turns (automatic continuation), with checkpoints and evidence.',
  },
  orc: {
    usage: '/orc [status] | /orc start <task> | /orc next | /orc audit|build|check|done | /orc reset',
    description: 'PABCD orchestration: Plan, Audit, Build, Check, Done, one phase at a time.',
  },
};

export const usageError = (name: string) =>
  new ServiceError('BAD_REQUEST', `Usage: ${COMMANDS[name].usage}`, { details: { command: name } });

/** One-shot answer: text lines then a done with data. */
export const answer =
  (command: string, text: string, data: Record<string, unknown>): PreparedCommand =>
  async (sink) => {
    sink({ type: 'text', content: text });
    sink({ type: 'done', status: 'ok', command, data });
  };
