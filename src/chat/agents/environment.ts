import type { AgentSpec } from './catalog.js';

/** Variables any program needs to run normally (locale, home, temp, proxies, CA bundles). */
const BASE_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
]);
const BASE_PREFIXES = ['LC_', 'XDG_'];

/**
 * The environment an agent program runs with: an allow-list, never a copy of
 * ours, so the server's own token and other services' keys stay out. The
 * agent's own variables (by prefix) and names listed in `extraNames` pass.
 */
export function agentEnvironment(
  source: Readonly<Record<string, string | undefined>>,
  agent: AgentSpec,
  extraNames: readonly string[] = [],
): Record<string, string> {
  const prefixes = [...BASE_PREFIXES, ...agent.envPrefixes];
  const extra = new Set(extraNames);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (BASE_NAMES.has(name) || extra.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return env;
}
