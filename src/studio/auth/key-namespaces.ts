// Key namespaces the studio stores and reports (`/api/keys/status`), each with
// the environment variable that sets it. `managed` ones are the spec's four
// (omni, alpha, beta, cloud): they have key routes; the others come from the
// environment or config.json.
export const KEY_NAMESPACES = {
  omni: { env: 'OMNI_API_KEY', managed: true },
  alpha: { env: 'ALPHA_API_KEY', managed: true },
  beta: { env: 'BETA_API_KEY', managed: true },
  cloud: { env: 'CLOUD_SERVICE_ACCOUNT_JSON', managed: true },
  gamma: { env: 'GAMMA_API_KEY', managed: false },
  delta: { env: 'DELTA_API_KEY', managed: false },
  epsilon: { env: 'EPSILON_API_KEY', managed: false },
} as const;

export type KeyNamespace = keyof typeof KEY_NAMESPACES;
