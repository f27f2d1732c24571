import type { ErrorPayload } from '../../api/contract';
import { ApiError, api } from '../../api/http';
import type { GraphSaved, GraphSnapshot, NodeGenerateRequest, SessionDeleted, SessionSummary, SessionsPage, VersionedGraph } from './types';

// The graph session routes the Node view uses (docs/API.md "Sessions and graphs").

const sessionPath = (id: string): string => `/api/sessions/${encodeURIComponent(id)}`;

/** Live sessions, newest first (one page: the picker shows the latest 200). */
export const listSessions = (): Promise<SessionsPage> => api<SessionsPage>('/api/sessions?limit=200');

export const createSession = (title: string): Promise<SessionSummary> =>
  api<SessionSummary>('/api/sessions', { method: 'POST', body: { title } });

export const renameSession = (id: string, title: string): Promise<SessionSummary> =>
  api<SessionSummary>(sessionPath(id), { method: 'PATCH', body: { title } });

export const deleteSession = (id: string): Promise<SessionDeleted> => api<SessionDeleted>(sessionPath(id), { method: 'DELETE' });

export const readGraph = (id: string): Promise<VersionedGraph> => api<VersionedGraph>(`${sessionPath(id)}/graph`);

/** What a 412 says: the server's version and its snapshot. */
export interface GraphConflict {
  version: number;
  graph: GraphSnapshot;
}

export type SaveOutcome = { ok: true; saved: GraphSaved } | { ok: false; conflict: GraphConflict } | { ok: false; error: ErrorPayload };

/**
 * Saves the whole snapshot against the version it was made from. The entity
 * tag is sent quoted (`If-Match: "7"`), the form HTTP and the spec name.
 */
export async function saveGraph(id: string, version: number, snapshot: GraphSnapshot): Promise<SaveOutcome> {
  try {
    const saved = await api<GraphSaved>(`${sessionPath(id)}/graph`, {
      method: 'PUT',
      body: snapshot,
      headers: { 'if-match': `"${version}"` },
    });
    return { ok: true, saved };
  } catch (error) {
    if (error instanceof ApiError && error.code === 'GRAPH_VERSION_CONFLICT') {
      const details = error.details as { version?: unknown; graph?: unknown } | undefined;
      if (typeof details?.version === 'number' && typeof details.graph === 'object' && details.graph !== null) {
        return { ok: false, conflict: { version: details.version, graph: details.graph as GraphSnapshot } };
      }
      // A 412 without its snapshot: read the current graph.
      const current = await readGraph(id);
      const { version: currentVersion, ...graph } = current;
      return { ok: false, conflict: { version: currentVersion, graph } };
    }
    return { ok: false, error: error instanceof ApiError ? error.payload : { code: 'NETWORK', message: String(error) } };
  }
}

/** Starts a node job (async: its progress comes over the event stream). */
export const startNodeJob = (body: NodeGenerateRequest): Promise<unknown> => api('/api/node/generate', { method: 'POST', body });
