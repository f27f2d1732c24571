// The studio's API contract, from its one module (src/studio/api). Types come
// through `import type`, so none of its zod schemas reach the bundle; the
// runtime values come from values.ts, which is plain data.
export type {
  AssetEventPayload,
  AssetRecord,
  CapabilitiesBody,
  CatalogModelEntry,
  EditRequest,
  ErrorPayload,
  GenerateRequest,
  GenerationEvent,
  GenerationEventPayload,
  GenerationResult,
  HistoryQuery,
  InflightJob,
  JobRecord,
  JobResult,
  MultimodeRequest,
  MultimodeResult,
  ProviderCapabilities,
  ProviderStatus,
  ReplayGapEvent,
  SlotOutcome,
  DefaultsRequest,
  ApiKeyNamespace,
  KeyStatus,
  KeysStatusBody,
  KeyChangeBody,
  QuotaBody,
  QuotaResult,
  QuotaWindow,
  SwitchProvider,
  SwitchStarted,
  SwitchStatus,
  OauthStatusBody,
  KeySaveRequest,
  CloudKeySaveRequest,
  SwitchRequest,
  SwitchCancelled,
  VideoResult,
  McpResult,
  AgentTurn,
  AgentSession,
  AgentSessionBody,
  AgentQueue,
  PromptBuilderConfig,
  PromptBuilderChatAnswer,
  PromptBuilderChatRequest,
  VideoAnalysis,
  VideoLimitsBody,
  VideoMode,
} from '../../../../src/studio/api/index.js';
export { STORYBOARD_CLIPS, videoModeOf } from '../../../../src/studio/api/video-values.js';
export {
  AGENT_CANCELLABLE_STATES,
  AGENT_COMMANDS,
  AGENT_LIMITS,
  AGENT_COMMAND_NAMES,
  AGENT_RETRYABLE_STATES,
  type AgentCommand,
  type AgentItemState,
} from '../../../../src/studio/api/agent-values.js';
export {
  API_LIMITS,
  ASSET_KINDS,
  COMMON_CONTROLS,
  COMMON_SIZES,
  IMAGE_FORMATS,
  JOB_PHASES,
  LANE_IDS,
  MEDIA_KINDS,
  MODERATIONS,
  QUALITIES,
  REASONING_EFFORTS,
  REQUEST_ID_PATTERN,
  TERMINAL_JOB_STATES,
  isLaneId,
  parseSize,
  sizeProblem,
} from '../../../../src/studio/api/values.js';
export { jobSummary, type JobSummary } from '../../../../src/studio/api/job-summary.js';
export type {
  AssetKind,
  CommonControl,
  ImageFormat,
  JobKind,
  JobPhase,
  JobState,
  LaneId,
  LaneState,
  MediaKind,
  Moderation,
  ProviderId,
  Quality,
  ReasoningEffort,
} from '../../../../src/studio/api/values.js';

import type { HistoryQuery, ProviderCapabilities } from '../../../../src/studio/api/index.js';

/** What history's `kind=` takes: what an asset is (image, video, vector-svg) or what made it (generate, edit, import...). */
export type HistoryKind = NonNullable<HistoryQuery['kind']>;

/** A lane's entry of GET /api/capabilities (not the `auto` routing mode). */
export type LaneCapabilities = Extract<ProviderCapabilities, { routingMode: false }>;
/** The `auto` routing mode's entry. */
export type AutoCapabilities = Extract<ProviderCapabilities, { routingMode: true }>;

import type { AssetEventPayload } from '../../../../src/studio/api/index.js';

/** An event of topic `assets` as a client receives it. */
export type AssetEvent =
  | (AssetEventPayload<'thumbnail_ready'> & { id: string; topic: 'assets'; event: 'thumbnail_ready' })
  | (AssetEventPayload<'asset_broken'> & { id: string; topic: 'assets'; event: 'asset_broken' });
