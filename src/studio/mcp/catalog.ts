// The MCP lanes' model catalogs (contract: zeta-eta-source-usage §1): a model
// is its kind, its aspect ratios, the input roles it takes and its declared
// parameters. `zeta`'s is static (its server's tool schemas, §1.1), declared
// here once (its simulator serves the same facts); `eta`'s is read live from
// its server (eta-catalog.ts) into the same shape.

export const MCP_LANES = ['zeta', 'eta'] as const;
export type McpLane = (typeof MCP_LANES)[number];
export const isMcpLane = (value: unknown): value is McpLane => (MCP_LANES as readonly unknown[]).includes(value);

export const MCP_MEDIA_KINDS = ['image', 'video'] as const;
export type McpMediaKind = (typeof MCP_MEDIA_KINDS)[number];

/** What a request may give a model: the prompt, reference images, a first or last frame, a reference video (§1.2: eta adds audio). */
export const MCP_INPUT_ROLES = ['text', 'image_references', 'start_image', 'end_image', 'video_references', 'audio_references'] as const;
export type McpInputRole = (typeof MCP_INPUT_ROLES)[number];

export interface McpParameter {
  readonly name: string;
  readonly type: 'string' | 'number' | 'boolean';
  /** The allowed values (a closed list). */
  readonly options?: readonly (string | number)[];
  readonly min?: number;
  readonly max?: number;
  readonly default?: string | number | boolean;
  readonly description?: string;
}

export interface McpModel {
  readonly id: string;
  readonly kind: McpMediaKind;
  readonly description?: string;
  readonly aspectRatios: readonly string[];
  readonly inputRoles: readonly McpInputRole[];
  readonly parameters: readonly McpParameter[];
}

const IMAGE_TEXT_REFS: readonly McpInputRole[] = ['text', 'image_references'];
const VIDEO_RATIOS = ['16:9', '9:16', '1:1'] as const;
const generateAudio: McpParameter = { name: 'generateAudio', type: 'boolean', default: true };

/** §1.1, as the server's tool schemas declare it. */
export const ZETA_MODELS: readonly McpModel[] = [
  { id: 'nano-banana-pro', kind: 'image', aspectRatios: ['auto', '21:9', '16:9', '4:3', '1:1', '3:4', '9:16'], inputRoles: IMAGE_TEXT_REFS, parameters: [] },
  { id: 'gpt-image-2', kind: 'image', aspectRatios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'], inputRoles: IMAGE_TEXT_REFS, parameters: [] },
  { id: 'gen-4', kind: 'image', aspectRatios: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], inputRoles: IMAGE_TEXT_REFS, parameters: [] },
  {
    id: 'seedance-2',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image', 'image_references', 'video_references'],
    parameters: [{ name: 'duration', type: 'number', min: 4, max: 15, default: 10 }, { name: 'resolution', type: 'string', options: ['480p', '720p', '1080p'] }, generateAudio],
  },
  {
    id: 'kling-o3-pro',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image', 'image_references', 'video_references'],
    parameters: [{ name: 'duration', type: 'number', options: [5, 10, 15], default: 10 }, generateAudio],
  },
  { id: 'kling-3-pro', kind: 'video', aspectRatios: VIDEO_RATIOS, inputRoles: ['text', 'start_image', 'end_image'], parameters: [{ name: 'duration', type: 'number', options: [5, 10, 15], default: 10 }, generateAudio] },
  { id: 'gen-4.5', kind: 'video', aspectRatios: VIDEO_RATIOS, inputRoles: ['text', 'start_image'], parameters: [{ name: 'duration', type: 'number', min: 2, max: 10, default: 10 }, generateAudio] },
  {
    id: 'veo-3.1',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image'],
    parameters: [{ name: 'duration', type: 'number', options: [4, 6, 8], default: 8 }, { name: 'resolution', type: 'string', options: ['720p', '1080p'] }, generateAudio],
  },
  { id: 'gen-4-turbo', kind: 'video', aspectRatios: VIDEO_RATIOS, inputRoles: ['start_image'], parameters: [{ name: 'duration', type: 'number', options: [5, 10], default: 10 }] },
];

/** §1: each lane's default model per kind. */
export const MCP_DEFAULT_MODELS: Readonly<Record<McpLane, Readonly<Record<McpMediaKind, string>>>> = {
  zeta: { image: 'nano-banana-pro', video: 'seedance-2' },
  eta: { image: 'soul_2', video: 'cinematic_studio_3_0' },
};
