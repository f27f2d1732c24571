import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { EXIT_CODES } from '../../common/errors.js';
import {
  FLOW_BIND_FIELDS,
  type FlowBindCandidate,
  type FlowHealth,
  type FlowInspectResult,
  type FlowWorkflow,
  type FlowWorkflowListing,
} from '../../studio/api/index.js';
import { CliError } from '../client.js';
import { commandContext } from '../context.js';
import { table } from '../output.js';
import { plural } from '../../common/issue-message.js';

// `svc flow workflows ls|add|inspect|rm|probe`: the flow lane's workflow
// catalog (POST /api/flow/inspect, /api/flow/workflows, /api/flow/probe). A
// file is an API-format graph (JSON) or a PNG the node-graph server saved;
// `add` takes the bindings inspection infers, and `--bind` for the rest.

const TIMEOUT_MS = 20_000;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** The body's graph part: a PNG as base64, JSON as the parsed object. */
async function graphSource(path: string): Promise<{ graph: unknown } | { pngBase64: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CliError(
      `Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      EXIT_CODES.usage,
      'USAGE',
    );
  }
  if (bytes.subarray(0, 4).equals(PNG_MAGIC)) return { pngBase64: bytes.toString('base64') };
  try {
    return { graph: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    throw new CliError(`${path} is neither JSON nor a PNG.`, EXIT_CODES.usage, 'USAGE');
  }
}

/** `--bind field=<node>.<input>` (output: `output=<node>`), repeatable. */
export function parseBindings(pairs: readonly string[] | undefined): Record<string, { node: string; input?: string }> {
  const bind: Record<string, { node: string; input?: string }> = {};
  for (const pair of pairs ?? []) {
    const equals = pair.indexOf('=');
    const field = pair.slice(0, equals);
    const target = pair.slice(equals + 1);
    if (equals <= 0 || !(FLOW_BIND_FIELDS as readonly string[]).includes(field) || !target) {
      throw new CliError(
        `--bind takes <field>=<node>.<input> (fields: ${FLOW_BIND_FIELDS.join(', ')}; output=<node>), got "${pair}".`,
        EXIT_CODES.usage,
        'USAGE',
      );
    }
    if (field === 'output') {
      bind.output = { node: target };
      continue;
    }
    const dot = target.lastIndexOf('.');
    if (dot <= 0 || dot === target.length - 1)
      throw new CliError(`--bind ${field} needs <node>.<input>, got "${target}".`, EXIT_CODES.usage, 'USAGE');
    bind[field] = { node: target.slice(0, dot), input: target.slice(dot + 1) };
  }
  return bind;
}

const healthText = (health: FlowHealth) =>
  health.ok ? `up${health.version ? ` (${health.version})` : ''}` : `down: ${health.reason ?? 'no answer'}`;
const bindText = (workflow: FlowWorkflow) =>
  Object.entries(workflow.bind)
    .map(([field, ref]) => `${field}=${ref.node}${'input' in ref ? `.${ref.input}` : ''}`)
    .join(' ');
const candidateText = (candidate: FlowBindCandidate) =>
  `${candidate.field}: node ${candidate.node}${candidate.input ? `.${candidate.input}` : ''} (${candidate.classType}${candidate.title ? `, "${candidate.title}"` : ''})${candidate.unambiguous ? '' : ' ambiguous'}`;

export function registerFlow(program: Command): void {
  const flow = program.command('flow').description('The flow lane: workflows of a local node-graph server as models');
  const workflows = flow.command('workflows').description('The registered workflows: list, add, inspect, remove, probe');

  workflows
    .command('ls')
    .description("List the registered workflows with their server's health")
    .action(async (_options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ workflows: FlowWorkflowListing[] }>('GET', '/api/flow/workflows', { timeoutMs: TIMEOUT_MS });
      out.result(body, () => {
        if (!body.workflows.length) return 'No workflow registered: svc flow workflows add <file> --id <id>';
        return table([
          ['MODEL', 'KIND', 'ORIGIN', 'SERVER', 'BIND'],
          ...body.workflows.map((workflow) => [
            `flow/${workflow.id}`,
            workflow.mediaKind,
            workflow.origin,
            healthText(workflow.health),
            bindText(workflow),
          ]),
        ]);
      });
    });

  workflows
    .command('inspect')
    .argument('<file>', 'an API-format graph (JSON) or a PNG the node-graph server saved')
    .option('--origin <url>', 'the node-graph server whose node catalogue types the params (default: the lane base URL)')
    .description('Show the nodes, the binding candidates and the params of a workflow; nothing is saved')
    .action(async (file: string, options: { origin?: string }, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<FlowInspectResult>('POST', '/api/flow/inspect', {
        body: { ...(await graphSource(file)), ...(options.origin ? { origin: options.origin } : {}) },
        timeoutMs: TIMEOUT_MS,
      });
      out.result(body, () =>
        [
          `${plural(body.nodes.length, 'node')}${body.mediaKind ? `, makes ${body.mediaKind}` : ''}${body.needsConfirmation ? ' — choose the ambiguous bindings with --bind when adding' : ''}`,
          ...body.candidates.map((candidate) => `  ${candidateText(candidate)}`),
          `params: ${body.params.map((param) => param.name).join(', ') || 'none'}`,
        ].join('\n'),
      );
    });

  workflows
    .command('add')
    .argument('<file>', 'an API-format graph (JSON) or a PNG the node-graph server saved')
    .requiredOption('--id <id>', 'the workflow id (its model is flow/<id>)')
    .option('--label <label>', 'a label for the model picker')
    .option('--origin <url>', 'the node-graph server (default: the lane base URL)')
    .option(
      '--bind <field=node.input>',
      `a binding (${FLOW_BIND_FIELDS.join(', ')}; output=<node>), repeatable; the rest as inspection infers them`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--media-kind <kind>', 'image or video (default: from the output node)')
    .option('--replace', 'replace a workflow registered under this id')
    .description('Register a workflow as a model of the flow lane')
    .action(
      async (
        file: string,
        options: { id: string; label?: string; origin?: string; bind?: string[]; mediaKind?: string; replace?: boolean },
        command: Command,
      ) => {
        const { client, out } = commandContext(command);
        const source = await graphSource(file);
        const chosen = parseBindings(options.bind);
        const origin = options.origin ? { origin: options.origin } : {};
        // Without --bind the studio infers the binding itself (and names the fields to choose, with their
        // candidates, when it cannot); with it, the inferred rest is read first and the choices go over it.
        const bind = Object.keys(chosen).length
          ? {
              ...((
                await client.json<FlowInspectResult>('POST', '/api/flow/inspect', { body: { ...source, ...origin }, timeoutMs: TIMEOUT_MS })
              ).bind ?? {}),
              ...chosen,
            }
          : undefined;
        const body = await client.json<{ workflow: FlowWorkflow }>('POST', '/api/flow/workflows', {
          body: {
            ...source,
            ...origin,
            id: options.id,
            ...(bind ? { bind } : {}),
            ...(options.label ? { label: options.label } : {}),
            ...(options.mediaKind ? { mediaKind: options.mediaKind } : {}),
            ...(options.replace ? { replace: true } : {}),
          },
          timeoutMs: TIMEOUT_MS,
        });
        out.result(
          body,
          () =>
            `Registered flow/${body.workflow.id} on ${body.workflow.origin}: ${bindText(body.workflow)}\nparams: ${body.workflow.params.map((param) => param.name).join(', ') || 'none'}`,
        );
      },
    );

  workflows
    .command('rm')
    .argument('<id>', 'the workflow id')
    .description('Remove a registered workflow')
    .action(async (id: string, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ id: string }>('DELETE', `/api/flow/workflows/${encodeURIComponent(id)}`, { timeoutMs: TIMEOUT_MS });
      out.result(body, () => `Removed flow/${body.id}.`);
    });

  workflows
    .command('probe')
    .argument('[origin]', 'the node-graph server (default: the lane base URL)')
    .description('Check whether a node-graph server answers')
    .action(async (origin: string | undefined, _options, command: Command) => {
      const { client, out } = commandContext(command);
      const body = await client.json<{ origin: string; health: FlowHealth }>('POST', '/api/flow/probe', {
        body: origin ? { origin } : {},
        timeoutMs: TIMEOUT_MS,
      });
      out.result(body, () => `${body.origin}: ${healthText(body.health)}`);
    });
}
