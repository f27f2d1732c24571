import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import type { GraphSaved, SessionBody, SessionDeleted, SessionsPage, SessionSummary, VersionedGraph } from '../../studio/api/index.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';
import { table } from '../output.js';
import { prepareOut, singlePath, writeOut } from '../out-target.js';
import { localTime } from '../local-time.js';
import { plural } from '../../common/issue-message.js';

// `svc sessions …`: graph sessions and their graphs. `graph get` writes the
// graph with the version it read; `graph put` sends that version back as
// If-Match, so a graph changed meanwhile is refused (412), never overwritten.

const encode = (id: string) => encodeURIComponent(id);
const TIMEOUT_MS = 15_000;

/** The file of `graph put`: a graph as `graph get` wrote it, `version` included. */
async function readGraphFile(path: string): Promise<{ version: number; graph: Record<string, unknown> }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      EXIT_CODES.usage,
      'USAGE',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(`${path} is not JSON.`, EXIT_CODES.usage, 'USAGE');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CliError(`${path} must hold a graph object ({ version, nodes, edges }).`, EXIT_CODES.usage, 'USAGE');
  const { version, ...graph } = parsed as Record<string, unknown>;
  if (!Number.isInteger(version) || (version as number) < 1) {
    throw new CliError(
      `${path} has no "version": write it with \`svc sessions graph get <id> -o ${path}\`, edit it, then put it.`,
      EXIT_CODES.usage,
      'USAGE',
    );
  }
  return { version: version as number, graph };
}

const summaryLine = (session: SessionSummary) =>
  `${session.title} (${session.id}) · version ${session.version} · ${plural(session.nodeCount, 'node')}, ${plural(session.edgeCount, 'edge')}`;

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description('Graph sessions: list, show, create, rename, delete; get and put their graphs');

  sessions
    .command('ls')
    .description('List sessions, newest first')
    .option('--limit <n>', 'how many', '20')
    .option('--cursor <cursor>', 'continue from a previous page')
    .action(async (options: { limit: string; cursor?: string }, command: Command) => {
      const { client, out } = commandContext(command);
      const query = new URLSearchParams({ limit: options.limit });
      if (options.cursor) query.set('cursor', options.cursor);
      const page = await client.json<SessionsPage>('GET', `/api/sessions?${query}`, { timeoutMs: TIMEOUT_MS });
      out.result(page, () => {
        if (!page.sessions.length) return 'No sessions yet: svc sessions create <title>';
        const more = page.nextCursor ? `\n${out.color.dim(`more: svc sessions ls --cursor ${page.nextCursor}`)}` : '';
        return (
          table([
            ['ID', 'TITLE', 'VERSION', 'NODES', 'UPDATED'],
            ...page.sessions.map((session) => [
              session.id,
              session.title,
              String(session.version),
              String(session.nodeCount),
              localTime(session.updatedAt),
            ]),
          ]) + more
        );
      });
    });

  sessions
    .command('show')
    .argument('<id>', 'session id')
    .description('Show a session and its graph')
    .action(async (id: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const session = await client.json<SessionBody>('GET', `/api/sessions/${encode(id)}`, { timeoutMs: TIMEOUT_MS });
      out.result(session, () =>
        [
          out.color.bold(summaryLine(session)),
          ...session.graph.nodes.map(
            (node) => `  ${node.id}  ${out.color.dim(`(${node.position.x}, ${node.position.y})${node.type ? ` ${node.type}` : ''}`)}`,
          ),
          ...session.graph.edges.map((edge) => `  ${edge.source} → ${edge.target}  ${out.color.dim(edge.kind ?? 'edit')}`),
        ].join('\n'),
      );
    });

  sessions
    .command('create')
    .argument('<title>', 'the session title')
    .description('Create a session with an empty graph')
    .action(async (title: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const session = await client.json<SessionBody>('POST', '/api/sessions', { body: { title }, timeoutMs: TIMEOUT_MS });
      out.result(session, () => `${out.color.green('✓')} created ${session.title} ${out.color.dim(session.id)}`);
    });

  sessions
    .command('rename')
    .argument('<id>', 'session id')
    .argument('<title>', 'the new title')
    .description('Rename a session (its graph version stays)')
    .action(async (id: string, title: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const session = await client.json<SessionSummary>('PATCH', `/api/sessions/${encode(id)}`, { body: { title }, timeoutMs: TIMEOUT_MS });
      out.result(session, () => `${out.color.green('✓')} renamed ${session.id} to ${session.title}`);
    });

  sessions
    .command('rm')
    .argument('<id>', 'session id')
    .description('Delete a session and its graph; its images stay in history')
    .action(async (id: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const deleted = await client.json<SessionDeleted>('DELETE', `/api/sessions/${encode(id)}`, { timeoutMs: TIMEOUT_MS });
      out.result(
        deleted,
        () =>
          `${out.color.green('✓')} deleted ${deleted.title} ${out.color.dim(`(${deleted.id}); its images stay in history, grouped under it as deleted`)}`,
      );
    });

  const graph = sessions
    .command('graph')
    .description("Get or put a session's graph (optimistic concurrency: put sends the version get read)");

  graph
    .command('get')
    .argument('<id>', 'session id')
    .option('-o, --out <file|dir/>', 'write the graph here (with its version) instead of printing it; a directory takes <id>.json')
    .option('--mkdir', 'with -o: create missing directories')
    .description('Print (or write) the graph with its version')
    .action(async (id: string, options: { out?: string; mkdir?: boolean }, command: Command) => {
      const { client, out } = commandContext(command);
      const target = prepareOut(options.out, options);
      const current = await client.json<VersionedGraph>('GET', `/api/sessions/${encode(id)}/graph`, { timeoutMs: TIMEOUT_MS });
      if (!target) return void process.stdout.write(`${JSON.stringify(current, null, 2)}\n`);
      const saved = singlePath(target, `${id}.json`);
      writeOut(saved, `${JSON.stringify(current, null, 2)}\n`);
      out.result(
        { ...current, saved },
        () =>
          `${out.color.green('✓')} ${saved} ${out.color.dim(`version ${current.version} · ${plural(current.nodes.length, 'node')}, ${plural(current.edges.length, 'edge')}`)}`,
      );
    });

  graph
    .command('put')
    .argument('<id>', 'session id')
    .argument('<file>', 'a graph as `graph get -o` wrote it, edited')
    .description('Save the graph in <file> if the session still has the version it was read at')
    .action(async (id: string, file: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const { version, graph: snapshot } = await readGraphFile(file);
      let saved: GraphSaved;
      try {
        saved = await client.json<GraphSaved>('PUT', `/api/sessions/${encode(id)}/graph`, {
          body: snapshot,
          headers: { 'if-match': `"${version}"` },
          timeoutMs: TIMEOUT_MS,
        });
      } catch (error) {
        if (error instanceof CliError && error.code === 'GRAPH_VERSION_CONFLICT') {
          const current = (error.details as { version?: number } | undefined)?.version;
          throw new CliError(
            `The graph changed since ${file} was read: the session is at version ${current ?? '?'}, the file at ${version}. Nothing was saved. Get it again (svc sessions graph get ${id} -o ${file}), reapply your change, and put it.`,
            error.exitCode,
            error.code,
            error.details,
          );
        }
        throw error;
      }
      out.result(
        saved,
        () =>
          `${out.color.green('✓')} saved ${saved.id} ${out.color.dim(`version ${version} → ${saved.version} · ${plural(saved.nodeCount, 'node')}, ${plural(saved.edgeCount, 'edge')}`)}`,
      );
    });
}
