import type { SecretRegistry } from '../../common/secrets.js';
import type { FlowRegisterRequest, LaneId } from '../api/index.js';
import type { ResolvedKey } from '../auth/credentials.js';
import type { KeyNamespace } from '../auth/key-namespaces.js';
import type { KeyStore } from '../keys/store.js';
import type { StudioPaths } from '../paths.js';
import type { Settings } from '../settings.js';
import type { FlowWorkflowRepository } from '../store/repositories.js';

// What a lane receives from the studio: its credentials, where its upstreams
// are, the settings it reads, the secrets register, and the few records a lane
// keeps. Nothing else: no database, no job engine, no event channel. The
// studio builds one (context.ts `laneEnv`); a lane is written and tested
// against this alone.

/** What a demo gives the lanes: the workflows flow holds for the run (their origin is the demo's node-graph simulator). */
export interface LaneDemoContent {
  readonly flowWorkflows: readonly Omit<FlowRegisterRequest, 'origin'>[];
}

export interface LaneEnv {
  readonly version: string;
  /** When this studio process started (ISO); with the pid it names this run in the descriptor file. */
  readonly startedAt: string;
  /** The process environment as the studio reads it (tests pass their own). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly demo: boolean;
  /** The state dir and the descriptor file (a lane's own files live under the home). */
  readonly paths: Pick<StudioPaths, 'home' | 'descriptorFile'>;
  /** config.json: the lane's saved defaults and upstream URLs. */
  readonly settings: Pick<Settings, 'get'>;
  /** Saved key-related choices (beta-api's auth mode). */
  readonly keyStore: Pick<KeyStore, 'betaAuthMode'>;
  /** Every credential a lane reads or mints is registered here before any vendor sees it, so nothing of it is ever logged or answered. */
  readonly secrets: Pick<SecretRegistry, 'add'>;
  /** In a demo: what the demo gives the lanes (src/demo), else undefined. */
  readonly demoContent?: LaneDemoContent;
  /** The records lanes keep (flow's registered workflows). */
  readonly records: { readonly flowWorkflows: FlowWorkflowRepository };
  /** Base URL (no trailing slash) of a lane's endpoint, after overrides; NETWORK_FAILED when none is configured. */
  upstreamUrl(lane: LaneId, endpoint?: string): string;
  /** The configured base URL, or undefined (for reports). */
  configuredUpstreamUrl(lane: LaneId, endpoint?: string): string | undefined;
  /** The key for a namespace: environment, then the saved one, then a demo placeholder. */
  key(namespace: KeyNamespace): ResolvedKey | undefined;
  /** The session file of a lane whose credential is an OAuth session. */
  sessionFile(lane: LaneId): string;
}
