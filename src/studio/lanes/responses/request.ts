import type { ImageFormat, Moderation, Quality, ReasoningEffort } from '../../catalog/controls.js';
import type { LaneInputImage } from '../types.js';

// The body of `POST …/responses` for one image: a planner model with the hosted
// image tool. Both lanes build it here; they differ only in a few flags.

/** Partial renders requested per image; the contract allows 0–3. */
export const PARTIAL_IMAGES = 2;

/** System text for the planner. The oauth backend refuses requests without instructions. */
export const PLANNER_INSTRUCTIONS =
  'You are the planner of an image studio. Turn the user request into one detailed image prompt and call the ' +
  'image_generation tool exactly once with it. When input images are given, use them as the references or the ' +
  'image to edit. Do not answer with text only.';

export interface ImageToolSettings {
  /** The renderer inside the tool (lang-image-2). */
  readonly model: string;
  readonly format: ImageFormat;
  readonly size?: string;
  readonly quality?: Quality;
  readonly moderation?: Moderation;
  readonly partialImages: number;
  readonly action: 'generate' | 'edit';
}

export interface ResponsesBodyInput {
  /** The planner model id sent upstream. */
  readonly model: string;
  readonly prompt: string;
  readonly tool: ImageToolSettings;
  /** Input images in order: the edited image first, then references. */
  readonly images: readonly LaneInputImage[];
  readonly mask?: LaneInputImage;
  readonly reasoning?: ReasoningEffort;
  readonly webSearch: boolean;
  /** oauth: `false` is required; api: omitted (we never read stored responses back). */
  readonly store?: boolean;
  readonly instructions: string;
}

export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

export const dataUrl = (image: LaneInputImage): string => `data:${image.mime};base64,${image.bytes.toString('base64')}`;

export function buildResponsesBody(input: ResponsesBodyInput): JsonObject {
  const { tool } = input;
  const imageTool: JsonObject = {
    type: 'image_generation',
    model: tool.model,
    output_format: tool.format,
    partial_images: tool.partialImages,
  };
  if (tool.size) imageTool.size = tool.size;
  if (tool.quality) imageTool.quality = tool.quality;
  if (tool.moderation) imageTool.moderation = tool.moderation;
  if (tool.action === 'edit') imageTool.action = 'edit';
  if (input.mask) imageTool.input_image_mask = { image_url: dataUrl(input.mask) };

  const content: JsonValue[] = [{ type: 'input_text', text: input.prompt }];
  for (const image of input.images) content.push({ type: 'input_image', image_url: dataUrl(image), detail: 'auto' });

  const tools: JsonValue[] = [imageTool];
  if (input.webSearch) tools.push({ type: 'web_search' });

  const body: JsonObject = {
    model: input.model,
    instructions: input.instructions,
    input: [{ role: 'user', content }],
    tools,
    // With web search the planner may look things up first, but it must end in a tool call.
    tool_choice: input.webSearch ? 'required' : { type: 'image_generation' },
    stream: true,
  };
  if (input.reasoning) body.reasoning = { effort: input.reasoning };
  if (input.store !== undefined) body.store = input.store;
  return body;
}
