import type { McpInputRole, McpModel, McpParameter } from '../mcp-media/catalog.js';

// zeta's catalog (contract: zeta-eta-source-usage §1.1): static, as its
// server's tool schemas declare it.

const IMAGE_TEXT_REFS: readonly McpInputRole[] = ['text', 'image_references'];
const VIDEO_RATIOS = ['16:9', '9:16', '1:1'] as const;
const generateAudio: McpParameter = { name: 'generateAudio', type: 'boolean', default: true };

/** §1.1, as the server's tool schemas declare it. */
export const ZETA_MODELS: readonly McpModel[] = [
  {
    id: 'nano-banana-pro',
    kind: 'image',
    aspectRatios: ['auto', '21:9', '16:9', '4:3', '1:1', '3:4', '9:16'],
    inputRoles: IMAGE_TEXT_REFS,
    parameters: [],
  },
  {
    id: 'gpt-image-2',
    kind: 'image',
    aspectRatios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'],
    inputRoles: IMAGE_TEXT_REFS,
    parameters: [],
  },
  { id: 'gen-4', kind: 'image', aspectRatios: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], inputRoles: IMAGE_TEXT_REFS, parameters: [] },
  {
    id: 'seedance-2',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image', 'image_references', 'video_references'],
    parameters: [
      { name: 'duration', type: 'number', min: 4, max: 15, default: 10 },
      { name: 'resolution', type: 'string', options: ['480p', '720p', '1080p'] },
      generateAudio,
    ],
  },
  {
    id: 'kling-o3-pro',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image', 'image_references', 'video_references'],
    parameters: [{ name: 'duration', type: 'number', options: [5, 10, 15], default: 10 }, generateAudio],
  },
  {
    id: 'kling-3-pro',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image'],
    parameters: [{ name: 'duration', type: 'number', options: [5, 10, 15], default: 10 }, generateAudio],
  },
  {
    id: 'gen-4.5',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image'],
    parameters: [{ name: 'duration', type: 'number', min: 2, max: 10, default: 10 }, generateAudio],
  },
  {
    id: 'veo-3.1',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['text', 'start_image', 'end_image'],
    parameters: [
      { name: 'duration', type: 'number', options: [4, 6, 8], default: 8 },
      { name: 'resolution', type: 'string', options: ['720p', '1080p'] },
      generateAudio,
    ],
  },
  {
    id: 'gen-4-turbo',
    kind: 'video',
    aspectRatios: VIDEO_RATIOS,
    inputRoles: ['start_image'],
    parameters: [{ name: 'duration', type: 'number', options: [5, 10], default: 10 }],
  },
];

/** §1: the default model per kind. */
export const ZETA_DEFAULT_MODELS = { image: 'nano-banana-pro', video: 'seedance-2' } as const;
