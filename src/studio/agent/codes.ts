import { spec } from '../../common/error-spec.js';

// Agent Mode's codes (ours: the spec names the routes, not their errors).
// Plain data: studio/errors.ts merges it into the one code table.

export const AGENT_CODES = {
  AGENT_SESSION_NOT_FOUND: spec(404, 'bad_request', 'No agent session with that id.'),
  AGENT_ITEM_NOT_FOUND: spec(404, 'bad_request', 'No agent queue item with that id.'),
  AGENT_PROMPT_REQUIRED: spec(400, 'bad_request', 'The turn needs a prompt (or a slash command that takes one needs its text).'),
  AGENT_UNKNOWN_COMMAND: spec(400, 'bad_request', 'Unknown slash command; /help lists them.'),
  AGENT_COMMAND_INVALID: spec(400, 'bad_request', 'The slash command was given a value it does not take.'),
  AGENT_NO_CURRENT_IMAGE: spec(409, 'bad_request', 'The session has no current image to edit or go back from.'),
  AGENT_IMAGE_NOT_FOUND: spec(404, 'bad_request', 'The image is not in history.'),
  AGENT_CANCEL_NOT_ALLOWED: spec(409, 'bad_request', 'Only a queued or running item can be cancelled.'),
  AGENT_RETRY_NOT_ALLOWED: spec(409, 'bad_request', 'Only a failed or cancelled item can be retried.'),
} as const;
