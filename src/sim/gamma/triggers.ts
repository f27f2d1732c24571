// The gamma simulator's prompt triggers (`[sim:<name>]`).

export const GAMMA_TRIGGERS = [
  // Submit refusals.
  'unauthorized',
  'ratelimit',
  'server-error',
  'no-id',
  // Where the submit answer puts the id.
  'id-top',
  'id-request-id',
  'id-data-request-id',
  'id-prediction-id',
  // How polls answer.
  'starting',
  'never',
  'failed',
  'error-status',
  'canceled',
  'status-top',
  'done-succeeded',
  'done-success',
  'output-object',
  'output-result',
  'output-data-uri',
  'output-unsafe',
  'output-missing',
  'output-not-image',
  'output-huge',
] as const;

export type GammaTrigger = (typeof GAMMA_TRIGGERS)[number];
