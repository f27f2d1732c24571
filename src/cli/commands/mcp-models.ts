import type { Command } from 'commander';
import type { LaneStatus } from '../../studio/lanes/types.js';
import type { McpModel } from '../../studio/api/mcp.js';
import { commandContext } from '../context.js';
import { table } from '../output.js';

// `svc models zeta|eta`: an MCP lane's models with what each takes (kind,
// aspect ratios, input roles, parameters) and the lane's live status
// (locked, disconnected or ready, with the reason). zeta's list is static,
// eta's is read from its server (GET /api/mcp/models).

const parameterText = (model: McpModel): string =>
  model.parameters
    .map(
      (entry) =>
        `${entry.name}${entry.options ? `=${entry.options.join('|')}` : entry.min !== undefined || entry.max !== undefined ? `=${entry.min ?? ''}-${entry.max ?? ''}` : ''}${entry.default !== undefined ? ` (${String(entry.default)})` : ''}`,
    )
    .join(', ') || '-';

export async function printMcpModels(command: Command, lane: string): Promise<void> {
  const { client, out } = commandContext(command);
  const body = await client.json<{ provider: string; status: LaneStatus; catalogAccess: string; models: McpModel[] }>(
    'GET',
    `/api/mcp/models?provider=${encodeURIComponent(lane)}`,
    { timeoutMs: 60_000 },
  );
  const { color } = out;
  out.result(body, () =>
    [
      `${lane}: ${body.status.state === 'ready' ? color.green(body.status.state) : color.yellow(body.status.state)} — ${body.status.reason}`,
      table([
        ['TARGET', 'KIND', 'RATIOS', 'INPUTS', 'PARAMETERS'].map((cell) => color.bold(cell)),
        ...body.models.map((model) => [
          `${lane}/${model.id}`,
          model.kind,
          model.aspectRatios.join(' '),
          model.inputRoles.join(' '),
          parameterText(model),
        ]),
      ]),
    ].join('\n'),
  );
}
