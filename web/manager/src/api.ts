// The manager's HTTP API and event channel, as the dashboard uses them.
import type { InstanceSummary, RecentEvent, TurnView } from '../../../src/manager/views';
import { takeToken } from '../../shared/token';

export type { InstanceSummary, RecentEvent, TurnView };

/** The manager's access token (SVC_CHAT_MANAGER_TOKEN), when it has one (see web/shared/token.ts). */
export const token = takeToken('svc-chat-manager-token');

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** One call in the error shape `{ error: { code, message } }`. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok) throw new ApiError(body.error?.message ?? `HTTP ${response.status}`, body.error?.code ?? 'HTTP_ERROR', response.status);
  return body as T;
}

export const listInstances = () => api<{ instances: InstanceSummary[] }>('/api/instances').then((body) => body.instances);
/** A worker's recent events, newest first. */
export const recentEvents = (id: string, limit: number) =>
  api<{ events: RecentEvent[] }>(`/api/instances/${id}/events?limit=${limit}`).then((body) => body.events);
