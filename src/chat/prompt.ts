import { ServiceError } from './errors.js';
import { CHAT_LIMITS } from './limits.js';

/**
 * A prompt goes to the agent program as one argv element: it must be
 * non-empty, fit the argument size limit, and hold no NUL (which no argv
 * element can carry).
 */
export function validatePrompt(prompt: string): string {
  if (prompt.trim() === '') throw new ServiceError('BAD_REQUEST', 'The prompt is empty.');
  if (prompt.includes('\0')) throw new ServiceError('BAD_REQUEST', 'The prompt contains a NUL character.');
  const bytes = Buffer.byteLength(prompt);
  if (bytes > CHAT_LIMITS.promptMaxBytes) {
    throw new ServiceError('BAD_REQUEST', `The prompt is ${bytes} bytes; the limit is ${CHAT_LIMITS.promptMaxBytes}.`, {
      details: { bytes, limit: CHAT_LIMITS.promptMaxBytes },
    });
  }
  return prompt;
}
