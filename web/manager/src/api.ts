// The manager's HTTP API and event channel, as the dashboard uses them.
import type { InstanceSummary, RecentEvent } from '../../../src/manager/views';

export type { InstanceSummary, RecentEvent };

const TOKEN_STORAGE_KEY = 'svc-chat-manager-token';

/**
 * The manager's access token (SVC_CHAT_MANAGER_TOKEN), when it has one: taken
 * from the page's URL (`#token=…`, which never reaches the server), kept for
 * this tab, and removed from the address bar.
 */
function takeToken(): string | undefined {
  const url = new URL(window.location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const fromUrl = fragment.get('token') ?? url.searchParams.get('token');
  if (fromUrl) {
    fragment.delete('token');
    url.searchParams.delete('token');
    url.hash = fragment.toString();
    window.history.replaceState(null, '', url);
    try {
      window.sessionStorage.setItem(TOKEN_STORAGE_KEY, fromUrl);
    } catch {
      // Storage disabled: the token lasts as long as this page.
    }
    return fromUrl;
  }
  try {
    return window.sessionStorage.getItem(TOKEN_STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export const token = takeToken();

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
  const response = await fetch(path, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const body = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!response.ok) throw new ApiError(body.error?.message ?? `HTTP ${response.status}`, body.error?.code ?? 'HTTP_ERROR', response.status);
  return body as T;
}

export const listInstances = () => api<{ instances: InstanceSummary[] }>('/api/instances').then((body) => body.instances);
export const recentEvents = (id: string) => api<{ events: RecentEvent[] }>(`/api/instances/${id}/events?limit=30`).then((body) => body.events);

/** The URL of the manager's event channel (EventSource cannot send headers: the token goes in the query). */
export function eventsUrl(): string {
  const url = new URL('/api/events', window.location.origin);
  if (token) url.searchParams.set('token', token);
  return url.toString();
}
