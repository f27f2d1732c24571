import type { KeyStore } from '../keys/store.js';
import { KEY_NAMESPACES, type KeyNamespace } from './key-namespaces.js';

export type KeySource = 'env' | 'config' | 'demo';

export interface ResolvedKey {
  readonly namespace: KeyNamespace;
  readonly value: string;
  readonly source: KeySource;
}

/** The environment's key for a namespace, if it sets one (such a key cannot be changed through the API). */
export const envKey = (namespace: KeyNamespace, env: Readonly<Record<string, string | undefined>>): string | undefined =>
  env[KEY_NAMESPACES[namespace].env]?.trim() || undefined;

/**
 * The key a lane uses: environment first (it cannot be changed through the API),
 * then the saved one (config.json; a demo's own file), then a demo's placeholder.
 */
export function resolveKey(
  namespace: KeyNamespace,
  sources: { env: Readonly<Record<string, string | undefined>>; store: KeyStore; demoKey?: string },
): ResolvedKey | undefined {
  const fromEnv = envKey(namespace, sources.env);
  if (fromEnv) return { namespace, value: fromEnv, source: 'env' };
  const saved = sources.store.get(namespace);
  if (saved) return { namespace, value: saved, source: 'config' };
  if (sources.demoKey) return { namespace, value: sources.demoKey, source: 'demo' };
  return undefined;
}
