import { useQuery } from '@tanstack/react-query';
import type { PromptBuilderChatAnswer, PromptBuilderChatRequest, PromptBuilderConfig } from '../../api/contract';
import { api } from '../../api/http';

// The prompt builder's routes (docs/API.md "Prompt builder"): its settings and one chat call.

export const promptBuilderConfigKey = ['prompt-builder', 'config'] as const;

/** The backend and model in use, where each comes from, what is locked, and every backend's readiness. */
export const usePromptBuilderConfig = () =>
  useQuery({ queryKey: promptBuilderConfigKey, queryFn: () => api<PromptBuilderConfig>('/api/prompt-builder/config'), staleTime: 10_000 });

export const savePromptBuilderConfig = (body: { backend: string; model: string | null }) =>
  api<PromptBuilderConfig>('/api/prompt-builder/config', { method: 'PUT', body });

export type ChatMessage = PromptBuilderChatRequest['messages'][number];

export const askPromptBuilder = (body: PromptBuilderChatRequest, signal?: AbortSignal) =>
  api<PromptBuilderChatAnswer>('/api/prompt-builder/chat', { method: 'POST', body, signal });

/** What the settings would route to now: the named backend, or the first ready one of `auto`'s order. */
export function configuredBackend(
  config: PromptBuilderConfig | undefined,
): { backend: string; model: string | null; ready: boolean } | undefined {
  if (!config) return undefined;
  const pick =
    config.backend === 'auto'
      ? config.autoOrder.map((id) => config.backends.find((entry) => entry.id === id)).find((entry) => entry?.ready)
      : config.backends.find((entry) => entry.id === config.backend);
  if (!pick) return { backend: config.backend, model: config.model, ready: false };
  return { backend: pick.id, model: config.model ?? pick.defaultModel, ready: pick.ready };
}
