import { KEY_NAMESPACES, type KeyNamespace } from '../catalog/lanes.js';
import type { Settings } from '../settings.js';

export type KeySource = 'env' | 'config' | 'demo';

export interface ResolvedKey {
  readonly namespace: KeyNamespace;
  readonly value: string;
  readonly source: KeySource;
}

/** Shows enough of a key to recognise it and never enough to use it. */
export function maskKey(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length <= 8) return '•'.repeat(Math.max(4, trimmed.length));
  return `${trimmed.slice(0, 3)}…${trimmed.slice(-4)}`;
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
