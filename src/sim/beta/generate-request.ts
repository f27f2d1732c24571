import type { ErrorAnswer } from '../harness.js';
import {
  CLOUD_ONLY_IMAGE_FIELDS,
  COMMON_RATIOS,
  EXTREME_RATIOS,
  INPUT_MIME_TYPES,
  MAX_INPUT_IMAGES,
  type SimModel,
  type Surface,
} from './catalog.js';
import { invalidArgument } from './status-errors.js';
import { parseBetaTriggers, type BetaTriggers } from './triggers.js';

// A `:generateContent` body checked as the vendor checks it (contract §3):
// contents with text and inline images, the response modalities, and the
// image config each model and surface accepts.

export interface InputImage {
  readonly mimeType: string;
  readonly data: Buffer;
}

export interface GenerateJob {
  readonly prompt: string;
  readonly triggers: BetaTriggers;
  readonly images: readonly InputImage[];
  readonly aspectRatio: string;
  readonly imageSize: string;
  /** The caller asked for images (responseModalities has IMAGE, or is absent). */
  readonly wantsImage: boolean;
  readonly outputMimeType: 'image/png' | 'image/jpeg';
  readonly promptChars: number;
}

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Fields the vendor knows at the top level and in generationConfig (snake_case accepted too, as proto-JSON does). */
const TOP_FIELDS = new Set([
  'contents',
  'systemInstruction',
  'system_instruction',
  'generationConfig',
  'generation_config',
  'safetySettings',
  'safety_settings',
  'tools',
  'toolConfig',
  'cachedContent',
  'labels',
]);
const IMAGE_CONFIG_FIELDS = new Set(['aspectRatio', 'aspect_ratio', 'imageSize', 'image_size', ...CLOUD_ONLY_IMAGE_FIELDS]);

const field = (record: Record<string, unknown>, camel: string, snake: string): unknown => record[camel] ?? record[snake];

const unknownField = (name: string, where: string): ErrorAnswer =>
  invalidArgument(`Invalid JSON payload received. Unknown name "${name}" at '${where}': Cannot find field.`);

function parseParts(contents: unknown, surface: Surface): { text: string; images: InputImage[] } | ErrorAnswer {
  if (!Array.isArray(contents) || contents.length === 0)
    return invalidArgument('* GenerateContentRequest.contents: contents is not specified\n');
  const texts: string[] = [];
  const images: InputImage[] = [];
  for (const [index, item] of contents.entries()) {
    const content = asRecord(item);
    if (!content) return invalidArgument(`Invalid JSON payload received. Expected an object at 'contents[${index}]'.`);
    if (surface === 'cloud' && content.role === undefined) return invalidArgument('Please use a valid role: user, model.');
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model')
      return invalidArgument('Please use a valid role: user, model.');
    if (!Array.isArray(content.parts) || content.parts.length === 0)
      return invalidArgument(`* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`);
    for (const part of content.parts) {
      const record = asRecord(part) ?? {};
      const inline = asRecord(field(record, 'inlineData', 'inline_data'));
      if (typeof record.text === 'string') {
        if (content.role !== 'model') texts.push(record.text);
      } else if (inline) {
        const mimeType = field(inline, 'mimeType', 'mime_type');
        if (typeof mimeType !== 'string' || !(INPUT_MIME_TYPES as readonly string[]).includes(mimeType))
          return invalidArgument(`Unsupported MIME type: ${String(mimeType)}`);
        if (typeof inline.data !== 'string' || inline.data.startsWith('data:') || !/^[A-Za-z0-9+/=_-]*$/.test(inline.data)) {
          return invalidArgument("Invalid value at 'contents[0].parts[1].inline_data.data' (TYPE_BYTES), Base64 decoding failed.");
        }
        images.push({ mimeType, data: Buffer.from(inline.data, 'base64') });
      } else if (!asRecord(field(record, 'fileData', 'file_data'))) {
        return invalidArgument('* GenerateContentRequest.contents.parts: a part must have one of text, inline_data or file_data.\n');
      }
    }
  }
  if (images.length > MAX_INPUT_IMAGES)
    return invalidArgument(`Too many images in the request: ${images.length}. The maximum is ${MAX_INPUT_IMAGES}.`);
  return { text: texts.join('\n'), images };
}

/** Parses a body for `model` on `surface`; an ErrorAnswer when the vendor would refuse it. */
export function parseGenerateBody(body: unknown, model: SimModel, surface: Surface): GenerateJob | ErrorAnswer {
  const root = asRecord(body);
  if (!root) return invalidArgument('Invalid JSON payload received. Expected an object.');
  for (const name of Object.keys(root)) if (!TOP_FIELDS.has(name)) return unknownField(name, 'request');
  const parts = parseParts(root.contents, surface);
  if ('status' in parts) return parts;

  const config = asRecord(field(root, 'generationConfig', 'generation_config')) ?? {};
  const modalities = field(config, 'responseModalities', 'response_modalities');
  if (modalities !== undefined && (!Array.isArray(modalities) || modalities.some((value) => value !== 'TEXT' && value !== 'IMAGE'))) {
    return invalidArgument(
      `Invalid value at 'generation_config.response_modalities': ${JSON.stringify(modalities)}. Allowed: TEXT, IMAGE.`,
    );
  }
  const imageConfig = asRecord(field(config, 'imageConfig', 'image_config')) ?? {};
  for (const name of Object.keys(imageConfig)) {
    if (!IMAGE_CONFIG_FIELDS.has(name)) return unknownField(name, 'generation_config.image_config');
    if (surface === 'key' && (CLOUD_ONLY_IMAGE_FIELDS as readonly string[]).includes(name))
      return invalidArgument(`${name} parameter is not supported in Gemini API.`);
  }

  const aspectRatio = field(imageConfig, 'aspectRatio', 'aspect_ratio');
  const ratios: readonly string[] = surface === 'key' && model.extremeRatios ? [...COMMON_RATIOS, ...EXTREME_RATIOS] : COMMON_RATIOS;
  if (aspectRatio !== undefined && (typeof aspectRatio !== 'string' || !ratios.includes(aspectRatio))) {
    return invalidArgument(`Unsupported aspect ratio: ${String(aspectRatio)}. Supported values are ${ratios.join(', ')}.`);
  }
  const imageSize = field(imageConfig, 'imageSize', 'image_size');
  const sizes = model.imageSizes[surface];
  if (imageSize !== undefined) {
    if (sizes.length === 0) return invalidArgument(`imageSize is not supported for model ${model.id}.`);
    if (typeof imageSize !== 'string' || !sizes.includes(imageSize))
      return invalidArgument(`Unsupported image size: ${String(imageSize)}. Supported values for ${model.id} are ${sizes.join(', ')}.`);
  }
  const mime = imageConfig.outputMimeType;
  if (mime !== undefined && mime !== 'image/png' && mime !== 'image/jpeg')
    return invalidArgument(`Unsupported output MIME type: ${String(mime)}.`);

  const { triggers, cleaned } = parseBetaTriggers(parts.text);
  return {
    prompt: cleaned,
    triggers,
    images: parts.images,
    // Omitted: the model picks; the simulator picks square, at the default size.
    aspectRatio: typeof aspectRatio === 'string' ? aspectRatio : '1:1',
    imageSize: typeof imageSize === 'string' ? imageSize : '1K',
    wantsImage: modalities === undefined || (modalities as unknown[]).includes('IMAGE'),
    outputMimeType: mime === 'image/jpeg' ? 'image/jpeg' : 'image/png',
    promptChars: parts.text.length,
  };
}
