// CLI B of contracts/agent-cli-ndjson.md: thread / turn / item events.
import { asToolInput, objectField, stringField, type JsonObject } from './fields.js';
import { TextBlocks } from './text-blocks.js';
import type { AgentAdapter, AgentReport, OutputEvent, StreamNormalizer } from './types.js';

/** Item types whose text is streamed (agent_message as answer, the rest as thinking). */
const TEXT_ITEMS: Readonly<Record<string, 'text' | 'thinking'>> = { agent_message: 'text', reasoning: 'thinking', plan: 'thinking' };

/** A tool call's name and input from an item, or undefined when the item is not a tool call. */
function toolOf(item: JsonObject): { name: string; input: Record<string, unknown> } | undefined {
  switch (item.type) {
    case 'command_execution':
      return { name: 'command_execution', input: { command: item.command } };
    case 'file_change':
      return { name: 'file_change', input: { changes: item.changes ?? [] } };
    case 'mcp_tool_call':
      return { name: `${stringField(item, 'server') ?? 'mcp'}.${stringField(item, 'tool') ?? 'tool'}`, input: asToolInput(item.arguments) };
    case 'collab_tool_call':
      return {
        name: `collab.${stringField(item, 'tool') ?? 'tool'}`,
        input: { prompt: item.prompt, receiver_thread_ids: item.receiver_thread_ids },
      };
    case 'web_search':
      return { name: 'web_search', input: { query: item.query } };
    case 'todo_list':
      return { name: 'todo_list', input: { items: item.items ?? [] } };
    default:
      return undefined;
  }
}

class ThreadItemNormalizer implements StreamNormalizer {
  report: AgentReport | undefined;
  nativeSessionId: string | undefined;
  /** Text already emitted per item id, so updates emit only what is new. */
  private readonly emitted = new Map<string, string>();
  private readonly toolsSeen = new Set<string>();
  private readonly text = new TextBlocks();

  accept(line: JsonObject): OutputEvent[] {
    switch (line.type) {
      case 'thread.started':
        this.nativeSessionId = stringField(line, 'thread_id') ?? this.nativeSessionId;
        return [];
      case 'item.started':
      case 'item.updated':
      case 'item.completed': {
        const item = objectField(line, 'item');
        return item ? this.item(item) : [];
      }
      case 'item.plan.delta': {
        const id = stringField(line, 'item_id');
        const delta = stringField(line, 'delta');
        if (!id || !delta) return [];
        this.emitted.set(id, (this.emitted.get(id) ?? '') + delta);
        return [{ type: 'thinking', content: delta }];
      }
      case 'turn.completed':
        this.report ??= { status: 'ok' };
        return [];
      case 'turn.failed':
        this.report = { status: 'error', reason: stringField(objectField(line, 'error'), 'message') ?? 'turn failed' };
        return [];
      case 'error':
        // A fatal stream error; a later turn.failed carries the same story.
        this.report ??= { status: 'error', reason: stringField(line, 'message') ?? 'stream error' };
        return [];
      default:
        return [];
    }
  }

  private item(item: JsonObject): OutputEvent[] {
    const id = stringField(item, 'id') ?? '';
    const kind = TEXT_ITEMS[stringField(item, 'type') ?? ''];
    if (kind) {
      const full = stringField(item, 'text') ?? '';
      const before = this.emitted.get(id);
      // Only growth of what was already sent is sent; a rewrite would duplicate text.
      if (before !== undefined && !full.startsWith(before)) return [];
      const fresh = full.slice(before?.length ?? 0);
      if (!fresh) return [];
      this.emitted.set(id, full);
      if (kind === 'thinking') return [{ type: 'thinking', content: fresh }];
      return [{ type: 'text', content: before === undefined ? this.text.block(fresh) : this.text.delta(fresh) }];
    }
    const tool = toolOf(item);
    if (!tool || this.toolsSeen.has(id)) return [];
    this.toolsSeen.add(id);
    this.text.break();
    return [{ type: 'tool', ...tool }];
  }
}

export const agentB: AgentAdapter = {
  label: 'Agent B',
  protocol: 'CLI B thread/turn/item JSONL',
  // The contract's (inferred) resume form: `exec resume <thread_id> …`. A thread the
  // program no longer has fails the run before thread.started, and the chat
  // service then forgets the id and runs the prompt as a new thread.
  resumes: true,
  args(prompt, options) {
    const resume = options.resumeId ? ['resume', options.resumeId] : [];
    return ['exec', ...resume, '--json', '--skip-git-repo-check', '--', prompt];
  },
  createNormalizer: () => new ThreadItemNormalizer(),
};
