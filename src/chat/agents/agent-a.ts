// CLI A of contracts/agent-cli-ndjson.md: the envelope stream
// (`system` / `assistant` / `user` / `result`), one `assistant` line per
// content block, repeating the message id.
import { arrayField, asToolInput, isObject, objectField, stringField, type JsonObject } from './fields.js';
import { TextBlocks } from './text-blocks.js';
import type { AgentAdapter, AgentReport, OutputEvent, StreamNormalizer } from './types.js';

const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

/** A content block's identity inside its message, so repeated lines are emitted once. */
function blockKey(block: JsonObject): string {
  const id = stringField(block, 'id');
  if (id) return `id:${id}`;
  return `${stringField(block, 'type')}:${stringField(block, 'text') ?? stringField(block, 'thinking') ?? JSON.stringify(block)}`;
}

function failureReason(line: JsonObject, assistantError: string | undefined): string {
  const errors = (arrayField(line, 'errors') ?? []).filter((entry): entry is string => typeof entry === 'string');
  const text =
    errors.length > 0 ? errors.join('; ') : (stringField(line, 'result') ?? assistantError ?? stringField(line, 'subtype') ?? 'failed');
  const status = line.api_error_status;
  return typeof status === 'number' ? `${text} (HTTP ${status})` : text;
}

class EnvelopeNormalizer implements StreamNormalizer {
  report: AgentReport | undefined;
  nativeSessionId: string | undefined;
  private readonly seen = new Map<string, Set<string>>();
  private readonly text = new TextBlocks();
  private assistantError: string | undefined;

  accept(line: JsonObject): OutputEvent[] {
    switch (line.type) {
      case 'system':
        if (line.subtype === 'init') this.nativeSessionId = stringField(line, 'session_id') ?? this.nativeSessionId;
        return [];
      case 'assistant':
        return this.assistant(line);
      case 'result':
        this.report =
          line.subtype === 'success' && line.is_error !== true
            ? { status: 'ok' }
            : { status: 'error', reason: failureReason(line, this.assistantError) };
        return [];
      default:
        // user (tool results), stream_event, rate_limit_event and future kinds.
        return [];
    }
  }

  private assistant(line: JsonObject): OutputEvent[] {
    this.assistantError = stringField(line, 'error') ?? this.assistantError;
    const message = objectField(line, 'message');
    const blocks = arrayField(message, 'content') ?? [];
    // Sub-agent traffic (Task tool) is not the answer; only its tool calls are shown.
    const subAgent = typeof line.parent_tool_use_id === 'string';
    const messageId = stringField(message, 'id') ?? stringField(line, 'uuid') ?? '';
    let seen = this.seen.get(messageId);
    if (!seen) this.seen.set(messageId, (seen = new Set()));

    const events: OutputEvent[] = [];
    for (const block of blocks) {
      if (!isObject(block)) continue;
      const key = blockKey(block);
      if (seen.has(key)) continue;
      seen.add(key);
      const type = stringField(block, 'type');
      if (type === 'text' && !subAgent) {
        const text = stringField(block, 'text');
        if (text) events.push({ type: 'text', content: this.text.block(text) });
      } else if (type === 'thinking' && !subAgent) {
        const thinking = stringField(block, 'thinking');
        if (thinking) events.push({ type: 'thinking', content: thinking });
      } else if (type && TOOL_BLOCKS.has(type)) {
        this.text.break();
        events.push({ type: 'tool', name: stringField(block, 'name') ?? type, input: asToolInput(block.input) });
      }
    }
    return events;
  }
}

export const agentA: AgentAdapter = {
  label: 'Agent A',
  protocol: 'CLI A envelope stream (system/assistant/user/result)',
  resumes: true,
  args(prompt, options) {
    // --verbose is mandatory with stream-json in print mode; `--` ends the options.
    const resume = options.resumeId ? ['--resume', options.resumeId] : [];
    return ['-p', '--output-format', 'stream-json', '--verbose', ...resume, '--', prompt];
  },
  createNormalizer: () => new EnvelopeNormalizer(),
};
