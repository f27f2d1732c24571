import type { Settings } from '../settings.js';
import { KEY_NAMESPACES, type KeyNamespace } from './key-namespaces.js';

export type KeySource = 'env' | 'config' | 'demo';

export interface ResolvedKey {
  readonly namespace: KeyNamespace;
  readonly value: string;
  readonly source: KeySource;
}

/** The key a lane uses: environment first (it cannot be changed through the API), then config.json. */
export function resolveKey(
  namespace: KeyNamespace,
  sources: { env: Readonly<Record<string, string | undefined>>; settings: Settings },
): ResolvedKey | undefined {
  const fromEnv = sources.env[KEY_NAMESPACES[namespace].env]?.trim();
  if (fromEnv) return { namespace, value: fromEnv, source: 'env' };
  const fromConfig = sources.settings.get().keys?.[namespace]?.trim();
  if (fromConfig) return { namespace, value: fromConfig, source: 'config' };
  return undefined;
}
