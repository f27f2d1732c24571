import { AGENT_CODES } from '../agent/codes.js';
import { LANE_CODE_TABLES } from '../lanes/codes.js';
import { PROMPT_BUILDER_CODES } from '../prompt-builder/codes.js';
import { VIDEO_CODES } from '../video/codes.js';

// The code tables studio/errors.ts merges into the one table: every lane's
// (lanes/codes.ts) and those of video, Agent Mode and the prompt builder.

export const CODE_TABLES = [...LANE_CODE_TABLES, VIDEO_CODES, AGENT_CODES, PROMPT_BUILDER_CODES] as const;
