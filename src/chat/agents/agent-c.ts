// CLI C of contracts/agent-cli-ndjson.md: init / message / tool_use /
// tool_result / error / result, every line with a timestamp.
import { asToolInput, objectField, stringField, type JsonObject } from './fields.js';
import { TextBlocks } from './text-blocks.js';
import type { AgentAdapter, AgentReport, OutputEvent, StreamNormalizer } from './types.js';

class MessageToolNormalizer implements StreamNormalizer {
  report: AgentReport | undefined;
  nativeSessionId: string | undefined;
  private readonly text = new TextBlocks();
  /** Assistant text streamed since the last tool call, to drop a whole-message repeat. */
  private streamed = '';
  private lastError: string | undefined;

  accept(line: JsonObject): OutputEvent[] {
    switch (line.type) {
      case 'init':
        this.nativeSessionId = stringField(line, 'session_id') ?? this.nativeSessionId;
        return [];
      case 'message':
        return line.role === 'assistant' ? this.assistant(line) : [];
      case 'tool_use':
        this.text.break();
        this.streamed = '';
        return [{ type: 'tool', name: stringField(line, 'tool_name') ?? 'tool', input: asToolInput(line.parameters) }];
      case 'error':
        if (line.severity === 'error') this.lastError = stringField(line, 'message') ?? this.lastError;
        return [];
      case 'result':
        this.report =
          line.status === 'success'
            ? { status: 'ok' }
            : { status: 'error', reason: stringField(objectField(line, 'error'), 'message') ?? this.lastError ?? 'failed' };
        return [];
      default:
        // tool_result and future kinds.
        return [];
    }
  }

  private assistant(line: JsonObject): OutputEvent[] {
    const content = stringField(line, 'content');
    if (!content) return [];
    if (line.delta === true) {
      this.streamed += content;
      return [{ type: 'text', content: this.text.delta(content) }];
    }
    // A non-delta message repeating the chunks just streamed adds nothing.
    if (content === this.streamed) return [];
    this.streamed = content;
    return [{ type: 'text', content: this.text.block(content) }];
  }
}

export const agentC: AgentAdapter = {
  label: 'Agent C',
  protocol: 'CLI C init/message/tool/result JSONL',
  resumes: false,
  args(prompt) {
    // `--prompt=<text>` keeps a prompt that starts with "-" a value, not a flag.
    return ['--output-format', 'stream-json', `--prompt=${prompt}`];
  },
  createNormalizer: () => new MessageToolNormalizer(),
};
