import type { ErrorPayload } from '../api/contract';

// What an error code means for a person, and what to do about it. The server's
// own message (often naming the exact variable or file) is shown under it.

export interface ErrorHelp {
  /** The code's meaning in plain words. */
  meaning: string;
  /** What to do; `{env}` is replaced by the variable the error names. */
  remedy?: string;
  /** The remedy is in Settings: the UI links there. */
  settings?: boolean;
}

const HELP: Readonly<Record<string, ErrorHelp>> = {
  API_KEY_REQUIRED: {
    meaning: 'This lane needs an API key and none is set.',
    remedy: 'Set {env} in Settings (or in the environment) and try again.',
    settings: true,
  },
  AUTH_API_KEY_INVALID: {
    meaning: 'The API key was refused: it is wrong, revoked, or out of quota.',
    remedy: 'Check the key in Settings, or use another lane.',
    settings: true,
  },
  OAUTH_UNAVAILABLE: {
    meaning: 'There is no usable chat account session for this lane.',
    remedy: 'Sign in with the chat CLI; Settings shows where the session file is expected.',
    settings: true,
  },
  AUTH_CHATGPT_EXPIRED: {
    meaning: 'The chat account session expired.',
    remedy: 'Sign in again with the chat CLI, then retry.',
    settings: true,
  },
  NO_LANE_READY: {
    meaning: 'No lane is ready to take this request.',
    remedy: 'Settings shows each lane and what it needs.',
    settings: true,
  },
  LANE_NOT_AVAILABLE: {
    meaning: 'This lane is not part of this build yet.',
    remedy: 'Pick another lane (Settings lists the ready ones).',
    settings: true,
  },
  ALPHA_AUTH_FAILED: {
    meaning: 'The alpha session or key was refused.',
    remedy: 'Log in again (svc alpha login) or check the key in Settings.',
    settings: true,
  },
  BETA_API_KEY_MISSING: {
    meaning: 'beta-api needs an API key or a service account.',
    remedy: 'Set BETA_API_KEY or CLOUD_SERVICE_ACCOUNT_JSON in Settings.',
    settings: true,
  },
  ENV_KEY_IMMUTABLE: {
    meaning: 'This key comes from the environment and cannot be changed here.',
    remedy: 'Change or unset {env} where the studio is started, then restart it.',
  },
  AUTH_SWITCH_DENIED: { meaning: 'The sign-in was declined.', remedy: 'Start again and approve the code.' },
  AUTH_SWITCH_NOT_FOUND: { meaning: 'This sign-in has ended and the studio no longer knows it.', remedy: 'Start again.' },
  MODERATION_REFUSED: {
    meaning: "The image service's moderation refused this prompt.",
    remedy: 'Rephrase the prompt, or set moderation to low where the lane offers it.',
  },
  SAFETY_REFUSAL: { meaning: 'The service refused the request for safety reasons.', remedy: 'Rephrase the prompt.' },
  BETA_API_SAFETY_BLOCKED: { meaning: "beta-api's safety filter blocked the image.", remedy: 'Rephrase the prompt.' },
  RATE_LIMITED: { meaning: 'The service is rate limiting this account.', remedy: 'Wait a little and try again, or use another lane.' },
  ALPHA_RATE_LIMITED: { meaning: 'Alpha is rate limiting this account.', remedy: 'Wait a little and try again.' },
  BETA_API_RATE_LIMITED: { meaning: 'beta-api is rate limiting this account.', remedy: 'Wait a little and try again.' },
  UPSTREAM_FAILED: { meaning: 'The image service failed to make the image.', remedy: 'Try again; if it keeps failing, try another lane.' },
  UPSTREAM_PROTOCOL_ERROR: {
    meaning: 'The image service answered something unexpected.',
    remedy: 'Try again; if it keeps failing, try another lane.',
  },
  UPSTREAM_TIMEOUT: { meaning: 'The image service took too long.', remedy: 'Try again, perhaps with a lower quality or a smaller size.' },
  GENERATION_TIMEOUT: { meaning: 'The generation took too long.', remedy: 'Try again, perhaps with a lower quality or a smaller size.' },
  NETWORK_FAILED: {
    meaning: 'The studio could not reach the image service.',
    remedy: 'Check the network, proxy, VPN or firewall of this machine.',
  },
  STORAGE_FULL: {
    meaning: "The disk holding the studio's files is full; browsing history still works.",
    remedy: 'Free space: delete images permanently in History (Delete permanently), or remove other files from that disk, then try again.',
  },
  JOB_CANCELLED: { meaning: 'The job was cancelled.' },
  JOB_INTERRUPTED: { meaning: 'The studio stopped while this job ran.', remedy: 'Run it again.' },
  INVALID_IMAGE_MODEL: { meaning: 'That model is not known.', remedy: 'Pick a model from the list.' },
  IMAGE_MODEL_UNSUPPORTED: { meaning: 'That model cannot make images on this lane.', remedy: 'Pick another model.' },
  LANE_UNSUPPORTED: {
    meaning: 'This lane does not support that setting or operation.',
    remedy: 'Remove the setting, or pick another lane.',
  },
  MASK_UNSUPPORTED: { meaning: 'This lane cannot edit with a mask.' },
  REFERENCE_INVALID: { meaning: 'A reference image could not be read.', remedy: 'Remove it and add a PNG, JPEG or WebP file.' },
  REFERENCE_TOO_LARGE: { meaning: 'A reference image is too large.', remedy: 'Use a smaller file (at most 20 MiB).' },
  REFERENCE_TOO_MANY: { meaning: 'Too many reference images for this lane.', remedy: 'Remove some references.' },
  REFERENCE_TYPE_UNSUPPORTED: { meaning: 'A reference image is not PNG, JPEG or WebP.', remedy: 'Convert it, or remove it.' },
  REFERENCE_NOT_FOUND: { meaning: 'A reference from history no longer exists.', remedy: 'Remove it from the references.' },
  PAYLOAD_TOO_LARGE: {
    meaning: 'The request is too large (the references together are over 100 MiB).',
    remedy: 'Use fewer or smaller references.',
  },
  BAD_REQUEST: { meaning: 'The studio refused these settings.', remedy: 'Check the field it names.' },
  REQUEST_ID_IN_USE: { meaning: 'A job with the same id is already running.', remedy: 'Try again.' },
  TOKEN_REQUIRED: { meaning: 'This studio needs its access token.', remedy: 'Open the page as /#token=<SVC_TOKEN>.' },
  FORBIDDEN_HOST: {
    meaning: 'The studio refused this address.',
    remedy: 'Open it through 127.0.0.1 or localhost, or add the origin with --allow-origin.',
  },
  FORBIDDEN_ORIGIN: { meaning: 'The studio refused a request from another origin.' },
  OPENER_UNAVAILABLE: {
    meaning: 'This machine has no program to open folders.',
    remedy: 'Open the folder named below in your file manager.',
  },
  SERVICE_UNAVAILABLE: { meaning: 'The studio is shutting down or busy.', remedy: 'Try again in a moment.' },
  INTERNAL_ERROR: { meaning: 'Something went wrong inside the studio.', remedy: "Try again; the studio's log has the details." },
  NETWORK: { meaning: 'The studio did not answer.', remedy: 'Check that svc serve is still running.' },
};

/** The help for an error, with the variable it names filled in. */
export function errorHelp(error: ErrorPayload): ErrorHelp {
  const help = HELP[error.code] ?? { meaning: error.message };
  const env = typeof error.details?.env === 'string' ? error.details.env : "the lane's key";
  return { ...help, remedy: help.remedy?.replace('{env}', env) };
}
