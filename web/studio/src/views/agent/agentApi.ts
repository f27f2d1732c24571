import { useQuery, type QueryClient } from '@tanstack/react-query';
import type { AgentSession, AgentSessionBody, AgentTurn } from '../../api/contract';
import { api } from '../../api/http';

// Agent Mode's routes (docs/API.md "Agent Mode"). What the page shows is the
// server's: sessions and turns are read again on each `agent` event, so a
// reload mid-run shows the same state.

export const agentKeys = {
  all: ['agent'] as const,
  sessions: ['agent', 'sessions'] as const,
  session: (id: string) => ['agent', 'session', id] as const,
};

const sessionPath = (id: string) => `/api/agent/sessions/${encodeURIComponent(id)}`;

/** True while an item of the session waits or runs (the page then also polls, in case an event is missed). */
export const isActive = (turn: AgentTurn): boolean => turn.state === 'queued' || turn.state === 'running';

export const useAgentSessions = () =>
  useQuery({
    queryKey: agentKeys.sessions,
    queryFn: () => api<{ sessions: AgentSession[] }>('/api/agent/sessions').then((body) => body.sessions),
  });

export const useAgentSession = (id: string | undefined) =>
  useQuery({
    queryKey: agentKeys.session(id ?? ''),
    queryFn: () => api<AgentSessionBody>(sessionPath(id ?? '')),
    enabled: id !== undefined,
    retry: false,
    refetchInterval: (query) => (query.state.data?.turns.some(isActive) ? 5000 : false),
  });

export const createAgentSession = (title?: string) =>
  api<AgentSession>('/api/agent/sessions', { method: 'POST', body: title ? { title } : {} });

export const updateAgentSession = (id: string, body: Record<string, unknown>) =>
  api<AgentSession>(sessionPath(id), { method: 'PATCH', body });

export const deleteAgentSession = (id: string) => api<{ id: string; deleted: true }>(sessionPath(id), { method: 'DELETE' });

/** Queues a turn: it runs whether or not this page stays (202, the item `queued`). */
export const enqueueTurn = (id: string, prompt: string) => api<AgentTurn>(`${sessionPath(id)}/queue`, { method: 'POST', body: { prompt } });

export const cancelItem = (itemId: string) => api<AgentTurn>(`/api/agent/queue/${encodeURIComponent(itemId)}/cancel`, { method: 'POST' });

export const retryItem = (itemId: string) => api<AgentTurn>(`/api/agent/queue/${encodeURIComponent(itemId)}/retry`, { method: 'POST' });

/** Puts an answered item into the cached session at once (the refetch confirms it). */
export function mergeTurn(queryClient: QueryClient, turn: AgentTurn): void {
  queryClient.setQueryData<AgentSessionBody>(agentKeys.session(turn.sessionId), (body) => {
    if (!body) return body;
    const known = body.turns.some((entry) => entry.itemId === turn.itemId);
    return { ...body, turns: known ? body.turns.map((entry) => (entry.itemId === turn.itemId ? turn : entry)) : [...body.turns, turn] };
  });
  void queryClient.invalidateQueries({ queryKey: agentKeys.session(turn.sessionId) });
  void queryClient.invalidateQueries({ queryKey: agentKeys.sessions });
}
