import { MCP_TASK_OPTION, type McpInputRole, type McpPlannedTask } from '../../api/mcp.js';
import type { LaneInputImage } from '../types.js';
import type { McpTaskInput } from './dialect.js';

/** The task POST /api/mcp/generate planned, when the `mcp` job passed one in the options (api/mcp.ts McpPlannedTask). */
export const plannedTask = (options: Readonly<Record<string, unknown>>): McpPlannedTask | undefined =>
  options[MCP_TASK_OPTION] as McpPlannedTask | undefined;

/** An input image of a surface without file names (POST /api/generate, the video route) as a task input in `role`: named by its role and place. */
export const imageInput = (role: McpInputRole, image: LaneInputImage, index: number): McpTaskInput => ({
  role,
  file: {
    filename: `${role}-${index + 1}.${image.mime === 'image/jpeg' ? 'jpg' : (image.mime.split('/')[1] ?? 'png')}`,
    bytes: image.bytes,
    mime: image.mime,
  },
});
