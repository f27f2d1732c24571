import { MANAGER_LIMITS } from './limits.js';

/**
 * GETs one of a worker's own JSON routes (a fixed path, never one from a
 * request), with its token and a time budget.
 */
export async function getWorkerJson<T>(origin: string, path: string, token: string | undefined, signal?: AbortSignal): Promise<T> {
  const timeout = AbortSignal.timeout(MANAGER_LIMITS.workerRequestTimeoutMs);
  const response = await fetch(`${origin}${path}`, {
    headers: { accept: 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    redirect: 'error',
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`${path} answered HTTP ${response.status}`);
  }
  return (await response.json()) as T;
}

export interface WorkerHealth {
  ok: boolean;
  service: string;
  version?: string;
  demo?: boolean;
}

/** True when the origin answers as an agent chat server. */
export async function isChatServer(origin: string, token: string | undefined, signal?: AbortSignal): Promise<boolean> {
  try {
    const health = await getWorkerJson<WorkerHealth>(origin, '/api/health', token, signal);
    return health.ok === true && health.service === 'svc-chat';
  } catch {
    return false;
  }
}
