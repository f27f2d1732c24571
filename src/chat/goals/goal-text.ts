import { ServiceError } from '../errors.js';
import { CHAT_LIMITS } from '../limits.js';

/** A goal's objective, summary or evidence item: not blank, bounded, and no NUL (it becomes part of a turn's prompt, an argv element). */
export function goalText(value: string, what: string): string {
  const text = value.trim();
  if (text === '') throw new ServiceError('BAD_REQUEST', `The ${what} is empty.`);
  if (text.includes('\0')) throw new ServiceError('BAD_REQUEST', `The ${what} contains a NUL character.`);
  if (text.length > CHAT_LIMITS.goalTextMaxChars) {
    throw new ServiceError('BAD_REQUEST', `The ${what} is ${text.length} characters; the limit is ${CHAT_LIMITS.goalTextMaxChars}.`, {
      details: { limit: CHAT_LIMITS.goalTextMaxChars },
    });
  }
  return text;
}
