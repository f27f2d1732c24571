import type { TextModel } from '../text-model.js';
import { alphaClient, type AlphaLaneId } from './call.js';
import { ALPHA_PLANNER_VERSIONS, DEFAULT_ALPHA_PLANNER } from './controls.js';
import { converse, searchWeb } from './planner.js';

// The text capability of the alpha lanes (the prompt builder, Agent Mode's
// planner): their planner models answer the conversation (`converse`, no
// tools), after the lane's own search step when the call asks for it. The
// steps keep their own budgets and codes (ALPHA_SEARCH_TIMEOUT,
// ALPHA_PLANNER_TIMEOUT); the answer comes whole, so it is one delta.

export function alphaText(lane: AlphaLaneId): TextModel {
  return {
    specificationVersion: 'v1',
    models: ALPHA_PLANNER_VERSIONS.map((id) => ({ id })),
    defaultModel: DEFAULT_ALPHA_PLANNER,
    webSearch: true,
    async generate(ctx, call, job) {
      const client = await alphaClient(ctx, lane, job.signal);
      let messages = call.messages;
      const last = messages.at(-1);
      if (call.webSearch && last) {
        // The search step first; its findings go with the newest message.
        const found = await searchWeb(client.step('search'), call.model, last.text);
        const sources = found.citations.map((citation) => `- ${citation.title ? `${citation.title}: ` : ''}${citation.url}`).join('\n');
        messages = [
          ...messages.slice(0, -1),
          {
            role: last.role,
            text: `${last.text}\n\nWeb findings: ${found.summary || '(nothing specific)'}${sources ? `\n${sources}` : ''}`,
          },
        ];
      }
      const answer = await converse(client.step('planner'), call.model, call.instructions, messages);
      if (answer.text) call.onDelta?.(answer.text);
      return { text: answer.text, usage: answer.usage };
    },
  };
}
