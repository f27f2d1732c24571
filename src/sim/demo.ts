import { createOauthSession, startResponsesSimulator, type OauthAuthFile, type ResponsesSimulator } from './responses-simulator.js';

// `svc serve --demo` runs every simulator in-process and points the lanes at
// them with placeholder credentials, so the product works end to end offline.

/** Demo pacing: partial images arrive over about a second, like a real render. */
const DEMO_GENERATION_DELAY_MS = 1200;
/** Demo usage bars move a little with each generation. */
const DEMO_PERCENT_PER_REQUEST = 2;

export interface DemoCredentials {
  /** API keys by the studio's key namespace. */
  readonly keys: { readonly omni: string };
  /** Write this (mode 0600) as the demo chat OAuth session file. */
  readonly oauthSession: OauthAuthFile;
}

export interface DemoSimulators {
  /** Upstream base URLs by lane id (and `oauthIssuer`). */
  readonly upstreams: Record<string, string>;
  readonly credentials: DemoCredentials;
  readonly simulators: { readonly responses: ResponsesSimulator };
  close(): Promise<void>;
}

export async function startDemoSimulators(): Promise<DemoSimulators> {
  const responses = await startResponsesSimulator({
    // Any `sim-…` key works in the demo, so saving a key through the UI can be tried.
    acceptKeyPrefix: 'sim-',
    generationDelayMs: DEMO_GENERATION_DELAY_MS,
    usage: { percentPerRequest: DEMO_PERCENT_PER_REQUEST },
  });
  return {
    upstreams: { api: responses.apiBaseUrl, oauth: responses.backendBaseUrl, oauthIssuer: responses.issuerUrl },
    credentials: { keys: { omni: responses.apiKey }, oauthSession: createOauthSession(responses) },
    simulators: { responses },
    close: async () => {
      await responses.close();
    },
  };
}
