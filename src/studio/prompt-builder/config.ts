import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ServiceError } from '../errors.js';
import {
  PROMPT_BUILDER_CHOICES,
  type PromptBuilderBackend,
  type PromptBuilderChoice,
  type PromptBuilderConfig,
  type PromptBuilderConfigRequest,
} from '../api/index.js';
import { TEXT_LANES } from '../catalog/registry.js';
import { laneStatus } from '../catalog/status.js';
import type { StudioContext } from '../context.js';
import { backendLane } from './backends.js';

// The prompt builder's settings (spec: "Prompt builder backend"): a backend
// (`auto` or one of the text lanes) and a model of that backend, persisted in
// config.json under `promptBuilder`. An environment variable fixes either one;
// the API then cannot change it, and says so. Agent Mode's planner routes by
// the same pair.

/** The variables that fix the pair (environment > config.json > built-in). */
export const PROMPT_BUILDER_ENV = { backend: 'SVC_PROMPT_BUILDER_BACKEND', model: 'SVC_PROMPT_BUILDER_MODEL' } as const;

/** Each backend's text models and default: its lane's text model. */
export function backendModels(backend: PromptBuilderBackend): { models: readonly string[]; defaultModel: string } {
  const { text } = backendLane(backend);
  return { models: text.models.map((model) => model.id), defaultModel: text.defaultModel };
}

/** The backend ids in the order `auto` tries them. */
export const autoOrder = (): PromptBuilderBackend[] => TEXT_LANES.map((lane) => lane.id);

const stored = lazy(() => z.object({ backend: z.enum(PROMPT_BUILDER_CHOICES), model: z.string().nullable().optional() }));

export interface BuilderSettings {
  readonly backend: PromptBuilderChoice;
  readonly model: string | null;
  readonly source: { readonly backend: 'env' | 'config' | 'default'; readonly model: 'env' | 'config' | 'default' };
  readonly locked: { readonly backend: boolean; readonly model: boolean };
}

/** The model must be one of the backend's; with `auto`, one of some backend's. */
export function checkModel(backend: PromptBuilderChoice, model: string | null | undefined, field = 'model'): void {
  if (model === null || model === undefined) return;
  const backends = backend === 'auto' ? autoOrder() : [backend];
  if (backends.some((id) => backendModels(id).models.includes(model))) return;
  const valid = Object.fromEntries(backends.map((id) => [id, backendModels(id).models]));
  throw new ServiceError('PROMPT_BUILDER_INVALID_MODEL', `"${model}" is not a model of the ${backend} prompt builder backend.`, {
    details: { field, backend, model, valid },
  });
}

/** The pair in force and where each part comes from. */
export function builderSettings(ctx: StudioContext): BuilderSettings {
  const saved = stored.safeParse((ctx.settings.get() as Record<string, unknown>).promptBuilder);
  const envBackend = ctx.env[PROMPT_BUILDER_ENV.backend]?.trim();
  const envModel = ctx.env[PROMPT_BUILDER_ENV.model]?.trim();
  const backendFromEnv = PROMPT_BUILDER_CHOICES.find((choice) => choice === envBackend);
  if (envBackend && !backendFromEnv)
    throw new ServiceError('INVALID_SETTING', `${PROMPT_BUILDER_ENV.backend}="${envBackend}" is not a prompt builder backend.`, {
      details: { env: PROMPT_BUILDER_ENV.backend, valid: PROMPT_BUILDER_CHOICES },
    });
  const backend = backendFromEnv ?? (saved.success ? saved.data.backend : 'auto');
  const model = envModel || (saved.success ? (saved.data.model ?? null) : null);
  return {
    backend,
    model,
    source: {
      backend: backendFromEnv ? 'env' : saved.success ? 'config' : 'default',
      model: envModel ? 'env' : saved.success && saved.data.model ? 'config' : 'default',
    },
    locked: { backend: Boolean(backendFromEnv), model: Boolean(envModel) },
  };
}

/** GET /api/prompt-builder/config: the pair, the locks, and each backend's catalog and readiness. */
export async function builderConfig(ctx: StudioContext): Promise<PromptBuilderConfig> {
  const settings = builderSettings(ctx);
  const backends = await Promise.all(
    autoOrder().map(async (id) => {
      const status = await laneStatus(ctx, id);
      const { models, defaultModel } = backendModels(id);
      return { id, ready: status.state === 'ready', reason: status.reason, defaultModel, models: [...models] };
    }),
  );
  return { ...settings, env: PROMPT_BUILDER_ENV, autoOrder: autoOrder(), backends };
}

/** PUT /api/prompt-builder/config: validated against the catalog; a part fixed by the environment cannot change. */
export async function saveBuilderConfig(ctx: StudioContext, body: PromptBuilderConfigRequest): Promise<PromptBuilderConfig> {
  const current = builderSettings(ctx);
  const model = body.model ?? null;
  if (current.locked.backend && body.backend !== current.backend) {
    throw new ServiceError('PROMPT_BUILDER_ENV_LOCKED', `${PROMPT_BUILDER_ENV.backend} fixes the backend at "${current.backend}".`, {
      details: { field: 'backend', env: PROMPT_BUILDER_ENV.backend, value: current.backend },
    });
  }
  if (current.locked.model && model !== current.model) {
    throw new ServiceError('PROMPT_BUILDER_ENV_LOCKED', `${PROMPT_BUILDER_ENV.model} fixes the model at "${current.model}".`, {
      details: { field: 'model', env: PROMPT_BUILDER_ENV.model, value: current.model },
    });
  }
  checkModel(body.backend, model);
  ctx.settings.update((draft) => {
    (draft as Record<string, unknown>).promptBuilder = { backend: body.backend, model };
  });
  return builderConfig(ctx);
}
