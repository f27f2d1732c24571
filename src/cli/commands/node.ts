import type { Command } from 'commander';
import type { NodeGenerationResult, NodeRecord } from '../../studio/api/index.js';
import { commandContext } from '../context.js';
import { describeImage, download, requestBody, streamJob, timeoutMs, withCommonOptions, type CommonOptions } from './generate.js';
import { localTime } from '../local-time.js';

// `svc node generate|show`: Node mode from the command line. A generation is
// the same streamed job as `svc generate`, on POST /api/node/generate.

const encode = (id: string) => encodeURIComponent(id);

export function registerNode(program: Command): void {
  const node = program.command('node').description('Node mode: generate root nodes and child edits, show a node');

  withCommonOptions(
    node
      .command('generate')
      .argument('<prompt>', 'what to draw (with --parent: what to change in the parent image)')
      .option('--session <id>', 'the graph session the node belongs to')
      .option('--parent <nodeId>', "make a child edit: the parent node's image is the edit input")
      .option('--add-to-graph', "also add the node to the session's graph (bumps its version)")
      .description('Generate a node: a root from a prompt, or a child edit of --parent'),
  ).action(
    async (prompt: string, options: CommonOptions & { session?: string; parent?: string; addToGraph?: boolean }, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await requestBody(prompt, options);
      if (options.session) body.sessionId = options.session;
      if (options.parent) body.parentNodeId = options.parent;
      if (options.addToGraph) body.addToGraph = true;
      const result = await streamJob<NodeGenerationResult>(client, out, '/api/node/generate', body, timeoutMs(options.timeout));
      const saved = await download(client, result?.images, options.out, { output: out });
      out.result({ ...result, saved }, () => {
        const where = [
          `node ${result.nodeId}`,
          result.parentNodeId ? `child of ${result.parentNodeId}` : 'root',
          result.sessionId ? `session ${result.sessionId}` : 'no session',
        ];
        if (result.addedToGraph) where.push(`graph version ${result.graphVersion}`);
        return `${describeImage(out, result.asset, saved[0])}\n  ${out.color.dim(where.join(' · '))}`;
      });
    },
  );

  node
    .command('show')
    .argument('<nodeId>', 'a node id (from svc node generate)')
    .description("Show a node's stored metadata: prompt, lane, model, settings, parent, session, image")
    .action(async (nodeId: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const record = await client.json<NodeRecord>('GET', `/api/node/${encode(nodeId)}`, { timeoutMs: 15_000 });
      out.result(record, () =>
        [
          `${out.color.bold(record.nodeId)}  ${out.color.dim(`${record.operation} · ${record.provider}/${record.model} · ${localTime(record.createdAt)}`)}`,
          `prompt   ${record.prompt}`,
          `parent   ${record.parentNodeId ?? '(root)'}`,
          `session  ${record.session ? `${record.session.title} (${record.session.id})${record.session.deleted ? ' — deleted' : ''}` : '(none)'}`,
          `image    ${record.asset.filename}${record.asset.state === 'live' ? '' : ` — ${record.asset.state}`}`,
        ].join('\n'),
      );
    });
}
