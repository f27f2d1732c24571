import { createAlphaSession, startAlphaSimulator, type AlphaSimulator } from './alpha/index.js';
import { startBetaSimulator, type BetaSimulator } from './beta/simulator.js';
import { startFakeCligen, type FakeCligen } from './cligen/index.js';
import { startDeltaSimulator, type DeltaSimulator } from './delta/index.js';
import { startEpsilonSimulator, type EpsilonSimulator } from './epsilon/index.js';
import { startFlowSimulator, type FlowSimulator } from './flow/index.js';
import { startGammaSimulator, type GammaSimulator } from './gamma/index.js';
import { startZetaSimulator, type ZetaSimulator } from './zeta/index.js';
import { startEtaSimulator, type EtaSimulator } from './eta/index.js';
import { createOauthSession, startResponsesSimulator, type ResponsesSimulator } from './responses-simulator.js';

// Every simulator at once, for `svc serve --demo` (in-process) and `svc sim
// serve` (its own process, so a crash test can kill the studio and keep the
// upstream). Each member simulates one vendor and says what a studio needs to
// use it: base URLs by lane (`<lane>`, or `<lane>.<endpoint>`), keys by key
// namespace, session files by lane. A new lane's simulator is one more member.

export interface SuiteOptions {
  /** Demo behaviour: any key works but one marked refused (demoAcceptsKey), renders are paced like real ones, usage bars move. */
  readonly demo?: boolean;
  /** Every long-running upstream operation (a render, a job, a prediction) takes about this long. */
  readonly latencyMs?: number;
  /** Port of the first simulator (0 or absent: any free port). */
  readonly port?: number;
}

/** What one member gives a studio. */
export interface SuiteMemberOutput {
  readonly upstreams: Readonly<Record<string, string>>;
  /** Keys by the studio's key namespace (omni, alpha, …). */
  readonly keys: Readonly<Record<string, string>>;
  /** Session file contents by lane, to be written (mode 0600) where the lane reads its session. */
  readonly sessions: Readonly<Record<string, unknown>>;
  /** Other environment a studio needs, by variable: where a lane's program is (a fake CLI), its home. */
  readonly env?: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

export type SuiteMember = (
  options: SuiteOptions & { port: number },
) => Promise<SuiteMemberOutput & { readonly simulator: unknown; readonly name: string }>;

/**
 * The demo's simulators take any key, so the demo runs whatever keys the user's environment holds
 * (the environment wins over the demo's placeholders, as it does over saved keys); a key with
 * `rejected` in it is refused, to show what a wrong key does.
 */
export const demoAcceptsKey = (key: string): boolean => !key.toLowerCase().includes(DEMO_REJECTED_KEY_MARK);

/** The word that makes the demo refuse a key or token (any case); the web UI's demo badge names it. */
export const DEMO_REJECTED_KEY_MARK = 'rejected';

/** Demo pacing: partial images arrive over about a second, like a real render. */
const DEMO_LATENCY_MS = 1200;
/** Demo usage bars move a little with each generation. */
const DEMO_PERCENT_PER_REQUEST = 2;
/** Demo sign-ins (account switching) are approved a few seconds after the code is shown. */
const DEMO_DEVICE_LOGIN = { autoApproveAfterMs: 3000, intervalSeconds: 1 } as const;

/** The vendor behind `api` and `oauth`: one simulator, one port. */
const responsesMember: SuiteMember = async (options) => {
  const responses = await startResponsesSimulator({
    port: options.port,
    // Any key works in the demo but a refused-marked one (demoAcceptsKey), so saving a key can be tried.
    ...(options.demo
      ? { acceptKey: demoAcceptsKey, usage: { percentPerRequest: DEMO_PERCENT_PER_REQUEST }, deviceLogin: DEMO_DEVICE_LOGIN }
      : {}),
    generationDelayMs: options.latencyMs ?? (options.demo ? DEMO_LATENCY_MS : 0),
  });
  return {
    name: 'responses',
    simulator: responses,
    upstreams: { api: responses.apiBaseUrl, oauth: responses.backendBaseUrl, 'oauth.issuer': responses.issuerUrl },
    keys: { omni: responses.apiKey },
    sessions: { oauth: createOauthSession(responses) },
    close: () => responses.close(),
  };
};

/**
 * The `:generateContent` vendor behind `beta-api`: the key surface, the cloud surface and its
 * token endpoint on one port. Only the API key is given: with a service account too, the lane
 * would default to the cloud mode, which ignores aspect ratio and resolution. The simulator's
 * service account (`simulators.beta.serviceAccountJson()`) turns the cloud mode on.
 */
const betaMember: SuiteMember = async (options) => {
  const beta = await startBetaSimulator({
    port: options.port,
    ...(options.demo ? { acceptKey: demoAcceptsKey } : {}),
    generationDelayMs: options.latencyMs ?? (options.demo ? DEMO_LATENCY_MS : 0),
  });
  return {
    name: 'beta',
    simulator: beta,
    upstreams: { 'beta-api': beta.keyBaseUrl, 'beta-api.cloud': beta.cloudBaseUrl, 'beta-api.token': beta.tokenUrl },
    keys: { beta: beta.apiKey },
    sessions: {},
    close: () => beta.close(),
  };
};

/** Demo sign-in: the simulator approves a device code by itself after this long, and asks for polls this often. */
const DEMO_LOGIN = { autoApproveAfterMs: 1000, intervalSeconds: 1 };

/**
 * The vendor behind `alpha` and `alpha-api`: the API (images, planner, models), its OIDC
 * issuer (device login, refresh) and its billing proxy on one port. Both the OAuth session
 * and the key are given; in the demo a device code is approved by itself.
 */
const alphaMember: SuiteMember = async (options) => {
  const alpha = await startAlphaSimulator({
    port: options.port,
    ...(options.demo ? { acceptKey: demoAcceptsKey, login: DEMO_LOGIN } : {}),
    latencyMs: options.latencyMs ?? (options.demo ? DEMO_LATENCY_MS : 0),
  });
  return {
    name: 'alpha',
    simulator: alpha,
    upstreams: {
      alpha: alpha.apiBaseUrl,
      'alpha-api': alpha.apiBaseUrl,
      'alpha.issuer': alpha.issuerUrl,
      'alpha.billing': alpha.billingUrl,
    },
    keys: { alpha: alpha.apiKey },
    sessions: { alpha: createAlphaSession(alpha) },
    close: () => alpha.close(),
  };
};

/** The prediction vendor behind `gamma`: uploads, submit, polling; a prediction runs about `latencyMs`. */
const gammaMember: SuiteMember = async (options) => {
  const gamma = await startGammaSimulator({
    port: options.port,
    ...(options.demo ? { acceptKey: demoAcceptsKey } : {}),
    latencyMs: options.latencyMs ?? (options.demo ? DEMO_LATENCY_MS : 0),
  });
  return {
    name: 'gamma',
    simulator: gamma,
    upstreams: { gamma: gamma.baseUrl },
    keys: { gamma: gamma.apiKey },
    sessions: {},
    close: () => gamma.close(),
  };
};

/** The `base_resp` vendor behind `delta`. */
const deltaMember: SuiteMember = async (options) => {
  const delta = await startDeltaSimulator({
    port: options.port,
    ...(options.demo ? { acceptKey: demoAcceptsKey } : {}),
    latencyMs: options.latencyMs ?? (options.demo ? DEMO_LATENCY_MS : 0),
  });
  return {
    name: 'delta',
    simulator: delta,
    upstreams: { delta: delta.url },
    keys: { delta: delta.apiKey },
    sessions: {},
    close: () => delta.close(),
  };
};

/** The ZIP-answering vendor behind `epsilon`. */
const epsilonMember: SuiteMember = async (options) => {
  const epsilon = await startEpsilonSimulator({
    port: options.port,
    ...(options.demo ? { acceptKey: demoAcceptsKey } : {}),
    latencyMs: options.latencyMs ?? (options.demo ? DEMO_LATENCY_MS : 0),
  });
  return {
    name: 'epsilon',
    simulator: epsilon,
    upstreams: { epsilon: epsilon.url },
    keys: { epsilon: epsilon.token },
    sessions: {},
    close: () => epsilon.close(),
  };
};

/**
 * The local generation CLI behind `cligen`: no server, a fake program the lane runs as a real
 * process, with a private home of its own (its artifacts never land in the user's home).
 */
const cligenMember: SuiteMember = async () => {
  const cligen = startFakeCligen();
  return {
    name: 'cligen',
    simulator: cligen,
    upstreams: {},
    keys: {},
    sessions: {},
    env: { SVC_CLIGEN_BIN: cligen.program, SVC_CLIGEN_HOME: cligen.home },
    close: () => cligen.close(),
  };
};

/** Demo pacing of the node-graph server: a 20-step sampler takes about two seconds. */
const DEMO_FLOW_STEP_MS = 100;

/** The local node-graph server behind `flow`: no credential; a sampler step takes `latencyMs` / 20. */
const flowMember: SuiteMember = async (options) => {
  const stepMs = options.latencyMs !== undefined ? options.latencyMs / 20 : options.demo ? DEMO_FLOW_STEP_MS : 5;
  const flow = await startFlowSimulator({ port: options.port, stepMs });
  return { name: 'flow', simulator: flow, upstreams: { flow: flow.url }, keys: {}, sessions: {}, close: () => flow.close() };
};

/** Demo pacing of an MCP task: queued, running, then the file (a video renders for real on top). */
const DEMO_MCP_LATENCY_MS = 4000;

/** The MCP media server behind `zeta`: bearer token in ZETA_MCP_TOKEN (any token but a refused-marked one in the demo). */
const zetaMember: SuiteMember = async (options) => {
  const zeta = await startZetaSimulator({
    port: options.port,
    ...(options.demo ? { acceptToken: demoAcceptsKey } : {}),
    latencyMs: options.latencyMs ?? (options.demo ? DEMO_MCP_LATENCY_MS : 0),
  });
  return {
    name: 'zeta',
    simulator: zeta,
    upstreams: { zeta: zeta.endpoint },
    keys: {},
    sessions: {},
    env: { ZETA_MCP_TOKEN: zeta.token },
    close: () => zeta.close(),
  };
};

/** The MCP catalog server behind `eta` (the studio keeps it locked unless SVC_ETA_EXECUTABLE unlocks it). */
const etaMember: SuiteMember = async (options) => {
  const eta = await startEtaSimulator({
    port: options.port,
    ...(options.demo ? { acceptToken: demoAcceptsKey } : {}),
    latencyMs: options.latencyMs ?? (options.demo ? DEMO_MCP_LATENCY_MS : 0),
  });
  return {
    name: 'eta',
    simulator: eta,
    upstreams: { eta: eta.endpoint },
    keys: {},
    sessions: {},
    env: { ETA_MCP_TOKEN: eta.token },
    close: () => eta.close(),
  };
};

/** The members, in start order (the first takes `--port`). */
const MEMBERS: readonly SuiteMember[] = [
  responsesMember,
  betaMember,
  alphaMember,
  gammaMember,
  deltaMember,
  epsilonMember,
  flowMember,
  cligenMember,
  zetaMember,
  etaMember,
];

export interface SimulatorSuite {
  readonly upstreams: Readonly<Record<string, string>>;
  readonly keys: Readonly<Record<string, string>>;
  readonly sessions: Readonly<Record<string, unknown>>;
  /** Environment beyond URLs, keys and sessions (the fake CLI's path and home). */
  readonly env: Readonly<Record<string, string>>;
  readonly simulators: {
    readonly responses: ResponsesSimulator;
    readonly beta: BetaSimulator;
    readonly alpha: AlphaSimulator;
    readonly gamma: GammaSimulator;
    readonly delta: DeltaSimulator;
    readonly epsilon: EpsilonSimulator;
    readonly flow: FlowSimulator;
    readonly cligen: FakeCligen;
    readonly zeta: ZetaSimulator;
    readonly eta: EtaSimulator;
  };
  close(): Promise<void>;
}

export async function startSimulatorSuite(options: SuiteOptions = {}): Promise<SimulatorSuite> {
  const started: Awaited<ReturnType<SuiteMember>>[] = [];
  const close = async () => {
    await Promise.all(started.map((member) => member.close()));
  };
  try {
    for (const [index, member] of MEMBERS.entries())
      started.push(await member({ ...options, port: index === 0 ? (options.port ?? 0) : 0 }));
  } catch (error) {
    await close();
    throw error;
  }
  const simulators = Object.fromEntries(
    started.map((member) => [member.name, member.simulator]),
  ) as unknown as SimulatorSuite['simulators'];
  return {
    upstreams: Object.assign({}, ...started.map((member) => member.upstreams)) as Record<string, string>,
    keys: Object.assign({}, ...started.map((member) => member.keys)) as Record<string, string>,
    sessions: Object.assign({}, ...started.map((member) => member.sessions)) as Record<string, unknown>,
    env: Object.assign({}, ...started.map((member) => member.env ?? {})) as Record<string, string>,
    simulators,
    close,
  };
}
