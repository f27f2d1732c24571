import type { AddressInfo } from 'node:net';
import { deflateSync } from 'node:zlib';
import { WebSocketServer } from 'ws';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/studio/errors.js';
import type { FlowGraph, FlowParam, FlowWorkflow } from '../../src/studio/api/flow.js';
import { bindCandidates, checkBind, checkParams, deriveParams, workflowOptions } from '../../src/studio/lanes/flow/binding.js';
import { parseSize } from '../../src/studio/api/index.js';
import { injectGraph } from '../../src/studio/lanes/flow/inject.js';
import { checkOrigin } from '../../src/studio/lanes/flow/origin.js';
import { pngTextChunks } from '../../src/studio/lanes/flow/png-text.js';
import { FlowSockets } from '../../src/studio/lanes/flow/sockets.js';
import type { LaneJob } from '../../src/studio/lanes/types.js';

// The flow lane's pure parts: the origin rule's spellings, the PNG text
// chunks (iTXt too), binding and param edge cases, injection into a copy.

const codeOf = (action: () => unknown): string | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return error instanceof ServiceError ? error.code : 'not a ServiceError';
  }
};

/** A PNG-shaped buffer: signature, the chunks given, IEND (CRCs are not checked by the reader). */
function png(chunks: [string, Buffer][]): Buffer {
  const chunk = ([type, data]: [string, Buffer]) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, data, Buffer.alloc(4)]);
  };
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ...[...chunks, ['IEND', Buffer.alloc(0)] as [string, Buffer]].map(chunk),
  ]);
}

describe('flow units', () => {
  it('accepts loopback origins in canonical form and refuses every other spelling', () => {
    expect(checkOrigin('http://127.0.0.1:8188')).toBe('http://127.0.0.1:8188');
    expect(checkOrigin('HTTP://LocalHost:8189/')).toBe('http://localhost:8189');
    expect(checkOrigin('http://[::1]:1')).toBe('http://[::1]:1');
    for (const origin of [
      'http://127.0.0.2:8188',
      'http://0x7f.1:8188',
      'http://[::ffff:127.0.0.1]:8188',
      'ws://127.0.0.1:8188',
      'http://127.0.0.1:8188#x',
      ' http://localhost',
      'http://localhost.:80',
    ]) {
      expect({ origin, code: codeOf(() => checkOrigin(origin)) }).toEqual({ origin, code: 'FLOW_URL_NOT_LOCAL' });
    }
  });

  it('reads tEXt, zTXt and iTXt (plain and compressed), first of a keyword wins', () => {
    const itxt = (keyword: string, text: string, compressed: boolean) =>
      Buffer.concat([
        Buffer.from(`${keyword}\0${compressed ? '\x01' : '\x00'}\0en\0${keyword}\0`, 'latin1'),
        compressed ? deflateSync(Buffer.from(text)) : Buffer.from(text, 'utf8'),
      ]);
    const texts = pngTextChunks(
      png([
        ['tEXt', Buffer.from('prompt\0{"a":1}', 'latin1')],
        ['zTXt', Buffer.concat([Buffer.from('workflow\0\0', 'latin1'), deflateSync(Buffer.from('{"nodes":[]}'))])],
        ['iTXt', itxt('parameters', 'é plain', false)],
        ['iTXt', itxt('comment', 'packed ✓', true)],
        ['tEXt', Buffer.from('prompt\0second', 'latin1')],
      ]),
    );
    expect(Object.fromEntries(texts)).toEqual({ prompt: '{"a":1}', workflow: '{"nodes":[]}', parameters: 'é plain', comment: 'packed ✓' });
    expect(() => pngTextChunks(Buffer.from('not a png'))).toThrow('not a PNG');
    const truncated = png([['tEXt', Buffer.from('prompt\0x', 'latin1')]]).subarray(0, 20);
    expect(() => pngTextChunks(truncated)).toThrow(/past the end/);
  });

  it('binds only literals, marks ambiguity, names colliding params by node', () => {
    const graph: FlowGraph = {
      '1': { class_type: 'CLIPTextEncode', inputs: { text: 'a', clip: ['9', 1] } },
      '2': { class_type: 'CLIPTextEncode', inputs: { text: ['8', 0], clip: ['9', 1] } },
      '3': { class_type: 'KSampler', inputs: { seed: 5, steps: 10 } },
      '4': { class_type: 'KSampler', inputs: { seed: 6, steps: 12 } },
      '5': { class_type: 'SaveImage', inputs: { images: ['3', 0], filename_prefix: 'x' } },
    };
    const candidates = bindCandidates(graph);
    // Node 2's text is a link: not a candidate, so the prompt is unambiguous.
    expect(candidates.filter((candidate) => candidate.field === 'prompt')).toEqual([
      expect.objectContaining({ node: '1', unambiguous: true }),
    ]);
    expect(candidates.filter((candidate) => candidate.field === 'seed').map((candidate) => candidate.unambiguous)).toEqual([false, false]);
    const bind = checkBind(graph, undefined);
    expect(bind).toEqual({ prompt: { node: '1', input: 'text' }, output: { node: '5' } });
    const params = deriveParams(graph, bind, undefined);
    expect(params.map((param) => param.name)).toEqual([
      'KSampler.3.seed',
      'KSampler.3.steps',
      'KSampler.4.seed',
      'KSampler.4.steps',
      'SaveImage.filename_prefix',
    ]);
    expect(params[1]).toEqual({ name: 'KSampler.3.steps', node: '3', input: 'steps', type: 'integer', default: 10 });
    expect(codeOf(() => checkBind(graph, { prompt: { node: '2', input: 'text' }, output: { node: '5' } }))).toBe(
      'FLOW_WORKFLOW_BIND_INVALID',
    );
  });

  it('says why supplied params are refused', () => {
    const graph: FlowGraph = { '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20 } } };
    const refusal = (params: FlowParam[]) => {
      try {
        checkParams(graph, params);
        return undefined;
      } catch (error) {
        return { code: (error as ServiceError).code, message: (error as Error).message };
      }
    };
    const steps: FlowParam = { name: 'steps', node: '3', input: 'steps', type: 'integer' };
    expect(refusal([{ ...steps, name: 'seed' }])).toEqual({
      code: 'FLOW_WORKFLOW_BIND_INVALID',
      message: expect.stringContaining('the bound seed option'),
    });
    expect(refusal([steps, steps])).toEqual({ code: 'FLOW_WORKFLOW_BIND_INVALID', message: expect.stringContaining('used twice') });
    expect(refusal([{ ...steps, input: 'cfg' }])).toEqual({
      code: 'FLOW_WORKFLOW_BIND_INVALID',
      message: expect.stringContaining('not a value it has'),
    });
    expect(refusal([steps])).toBeUndefined();
  });

  it('validates options by the params, and injects into a copy', () => {
    const graph: FlowGraph = {
      '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20, sampler_name: 'euler' } },
      '6': { class_type: 'CLIPTextEncode', inputs: { text: 'stored' } },
      '9': { class_type: 'SaveImage', inputs: { images: ['3', 0] } },
    };
    const bind = { prompt: { node: '6', input: 'text' }, seed: { node: '3', input: 'seed' }, output: { node: '9' } };
    const params = deriveParams(graph, bind, {
      KSampler: { input: { required: { steps: ['INT', { min: 1, max: 100 }], sampler_name: [['euler', 'ddim']] } } },
    });
    const options = workflowOptions(bind, params);
    expect(options.safeParse({ 'KSampler.steps': 30, 'KSampler.sampler_name': 'ddim', seed: 4 }).success).toBe(true);
    for (const bad of [{ 'KSampler.steps': 0 }, { 'KSampler.steps': 2.5 }, { 'KSampler.sampler_name': 'heun' }, { seed: -1 }, { other: 1 }])
      expect(options.safeParse(bad).success).toBe(false);

    const workflow: FlowWorkflow = {
      id: 'w',
      label: 'w',
      origin: 'http://127.0.0.1:1',
      mediaKind: 'image',
      graph,
      bind,
      params,
      createdAt: 0,
      updatedAt: 0,
    };
    const injected = injectGraph(workflow, { prompt: 'new', seed: 9, params: { 'KSampler.steps': 30 } });
    expect(injected['6'].inputs.text).toBe('new');
    expect(injected['3'].inputs).toEqual({ seed: 9, steps: 30, sampler_name: 'euler' });
    expect(graph['6'].inputs.text).toBe('stored');
    expect(graph['3'].inputs.steps).toBe(20);
    const broken = { ...workflow, bind: { ...bind, prompt: { node: '42', input: 'text' } } };
    expect(codeOf(() => injectGraph(broken, { prompt: 'x', params: {} }))).toBe('FLOW_WORKFLOW_BIND_INVALID');
    expect(parseSize('768x512')).toEqual({ width: 768, height: 512 });
    expect(parseSize('auto')).toBeUndefined();
  });
});

describe('the shared flow socket', () => {
  it('tells the job it is rendering when the first news of its prompt is an `executing` (a reconnect, a late socket)', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    const sockets = new FlowSockets('svc-test');
    try {
      const promptId = '5b2e6c1a-7d1f-4c55-9a51-2f0d4b0d7e11';
      // What the server says to a client that reconnects while its prompt runs (§3): only the running node.
      server.on('connection', (client) =>
        client.send(JSON.stringify({ type: 'executing', data: { node: '3', display_node: '3', prompt_id: promptId } })),
      );
      const phases: string[] = [];
      const job = { phase: (phase: string) => phases.push(phase), partial: () => undefined } as unknown as LaneJob;
      const origin = sockets.of(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const watch = origin.watch(promptId, job);
      await origin.socket.open();
      for (let waited = 0; !watch.started && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(watch.started).toBe(true);
      expect(phases).toEqual(['rendering']);
      // Told once, whoever notices it next (the queue, another message).
      watch.begin();
      expect(phases).toEqual(['rendering']);
    } finally {
      sockets.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
