import type { QueryClient } from '@tanstack/react-query';
import { toErrorPayload } from '../../api/http';
import { failJob, startedJob, updateLiveJobs } from '../../live/liveJobs';
import { rememberJob } from '../../live/sync';
import { newRequestId } from '../classic/generate';
import { startNodeJob } from './graphApi';
import { childPosition, editEdge, pendingNode, rootPosition, type ImageNode } from './graphModel';
import { useGraph } from './graphStore';
import type { NodeGenerateRequest } from './types';

/**
 * Starts a node job: a root (text to image) or a child edit of `parent`.
 * The node is drawn and saved in the graph before the POST is sent (with the
 * job's requestId as its id), so a reload mid-run keeps it; it takes the
 * server's node id when the job is done.
 */
export async function startNode(
  queryClient: QueryClient,
  fields: { prompt: string; provider: string; parent?: ImageNode },
): Promise<string> {
  const graph = useGraph.getState();
  const sessionId = graph.sessionId;
  if (!sessionId) throw new Error('No session is open.');
  const requestId = newRequestId();
  const { parent } = fields;
  const prompt = fields.prompt.trim();
  const provider = fields.provider === 'auto' ? undefined : fields.provider;
  const position = parent ? childPosition(parent, graph.edges) : rootPosition(graph.nodes);
  updateLiveJobs(queryClient, (jobs) => [startedJob({ requestId, kind: 'node', prompt, provider, slots: 1 }), ...jobs]);
  rememberJob(requestId);
  graph.commit(({ nodes, edges }) => ({
    nodes: [
      ...nodes.map((node) => (node.selected ? { ...node, selected: false } : node)),
      { ...pendingNode(requestId, prompt, position, provider), selected: true },
    ],
    edges: parent ? [...edges, editEdge(parent.id, requestId)] : edges,
  }));
  graph.setFocus(parent ? [parent.id, requestId] : [requestId]);
  try {
    await startNodeJob({
      prompt,
      provider: (provider ?? 'auto') as NodeGenerateRequest['provider'],
      sessionId,
      ...(parent ? { parentNodeId: parent.id } : {}),
      requestId,
      async: true,
    });
  } catch (error) {
    updateLiveJobs(queryClient, (jobs) => failJob(jobs, requestId, toErrorPayload(error)));
  }
  return requestId;
}
