import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LaneId } from '../../api/index.js';
import type { LaneEnv } from '../env.js';
import type { McpInputRole, McpMediaKind, McpModel } from './catalog.js';
import type { TaskReading } from './protocol.js';
import type { ToolCall } from './tools.js';

// What an MCP lane tells the shared MCP-media code (contract:
// zeta-eta-source-usage): its server, its catalog, and its dialect of the
// task tools (the submit and its arguments, the poll, the upload flow, how a
// result reads). Each lane's folder implements one; the image steps, the
// video steps, the MCP routes and the `mcp` job run over it.

/** A gallery file as a task input, read. */
export interface McpInputFile {
  readonly filename: string;
  readonly bytes: Buffer;
  readonly mime: string;
}

/** One input of a task: a file in a role the model takes (`tag`: zeta's reference tag). */
export interface McpTaskInput {
  readonly role: McpInputRole;
  readonly tag?: string;
  readonly file: McpInputFile;
}

/** One generation as the tools take it, validated against the model's declarations. */
export interface McpTaskRequest {
  readonly media: McpMediaKind;
  readonly prompt: string;
  readonly model: string;
  readonly ratio: string | null;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly inputs: readonly McpTaskInput[];
}

export interface McpLaneDialect {
  readonly lane: LaneId;
  /** The compiled endpoint (the lane's default base URL): only it, or a loopback simulator, is connected. */
  readonly endpoint: string;
  /** The environment variable of its bearer token. */
  readonly tokenEnv: string;
  /** The default model per kind (§1). */
  readonly defaults: Readonly<Record<McpMediaKind, string>>;
  /** Whether its catalog is its own data (`static`) or read from its server (`connected`). */
  readonly catalogAccess: 'static' | 'connected';
  /** Why generation is locked (a catalog-only plan), else undefined. */
  lock?(env: LaneEnv): string | undefined;
  /** Its models (eta's: read live, cached); MCP_NOT_CONNECTED when it must ask a server it cannot reach. */
  models(env: LaneEnv, signal?: AbortSignal): Promise<readonly McpModel[]>;
  /** Rules of single models the server applies (zeta §1.1): the parameters as they will be sent, given the input roles. */
  rules?(
    model: string,
    parameters: Readonly<Record<string, string | number | boolean>>,
    roles: readonly McpInputRole[],
  ): Readonly<Record<string, string | number | boolean>>;
  /** Arguments every tool call carries (zeta: its rationale sentence). */
  readonly callArgs?: Readonly<Record<string, unknown>>;
  /** The submit tool and its arguments; `refs`: what the uploads answered, by input. */
  submitCall(request: McpTaskRequest, refs: readonly string[]): { tool: string; args: Record<string, unknown> };
  /** The poll tool and its arguments. */
  pollCall(taskId: string): { tool: string; args: Record<string, unknown> };
  /** Uploads one file; answers what the submit names it by (an asset URL, a media id). */
  upload(call: ToolCall, file: McpInputFile): Promise<string>;
  /** The task id of a submit answer. */
  taskIdOf(result: CallToolResult): string | undefined;
  /** One poll answer, read. */
  readTask(media: McpMediaKind, result: CallToolResult): TaskReading;
}
