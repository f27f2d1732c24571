import type { ImageFormat, Moderation, Quality, ReasoningEffort } from '../../api/index.js';
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
  readonly background?: 'auto' | 'opaque' | 'transparent';
  readonly outputCompression?: number;
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

/** An input image inside a body: its data URL is spliced in when the body is serialized. */
class ImageUrl {
  constructor(readonly image: LaneInputImage) {}
}

/** A body under construction: JSON, with input images standing in for their data URLs. */
type BodyValue = string | number | boolean | null | BodyValue[] | BodyObject | ImageUrl;
type BodyObject = { [key: string]: BodyValue };

/** Size of the pieces an image's data URL is sent in: fetch reads a Blob one part at a time. */
const DATA_URL_PIECE_BYTES = 1 << 20;

const dataUrls = new WeakMap<LaneInputImage, readonly Blob[]>();

/**
 * The `data:` URL of an input image as Blob pieces, encoded once per image
 * object and kept outside the JS heap. The slots of a batch (and an oauth
 * retry) get the same image objects, so they send this one copy instead of each
 * encoding their own. Pieces are slices (views, not copies), so a call in
 * flight holds about one piece, not a whole image.
 */
export function dataUrlPieces(image: LaneInputImage): readonly Blob[] {
  let pieces = dataUrls.get(image);
  if (!pieces) {
    const whole = new Blob([`data:${image.mime};base64,`, image.bytes.toString('base64')]);
    const slices: Blob[] = [];
    for (let start = 0; start < whole.size; start += DATA_URL_PIECE_BYTES) slices.push(whole.slice(start, start + DATA_URL_PIECE_BYTES));
    pieces = slices;
    dataUrls.set(image, pieces);
  }
  return pieces;
}

/** Appends a part, joining adjacent text so the body is a few parts, not hundreds. */
function append(parts: BlobPart[], part: BlobPart): void {
  const last = parts.length - 1;
  if (typeof part === 'string' && typeof parts[last] === 'string') parts[last] = `${parts[last] as string}${part}`;
  else parts.push(part);
}

/** JSON text as blob parts: the structure as text, each image as its shared data-URL pieces (which need no escaping). */
function serialize(value: BodyValue, parts: BlobPart[]): void {
  if (value instanceof ImageUrl) {
    append(parts, '"');
    for (const piece of dataUrlPieces(value.image)) append(parts, piece);
    append(parts, '"');
  } else if (Array.isArray(value)) {
    append(parts, '[');
    value.forEach((item, index) => {
      if (index > 0) append(parts, ',');
      serialize(item, parts);
    });
    append(parts, ']');
  } else if (value !== null && typeof value === 'object') {
    append(parts, '{');
    Object.entries(value).forEach(([key, item], index) => {
      append(parts, `${index > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      serialize(item, parts);
    });
    append(parts, '}');
  } else {
    append(parts, JSON.stringify(value));
  }
}

/**
 * The request body, ready for fetch: with input images, a Blob whose image
 * parts are the shared data-URL blobs, so n concurrent calls with the same
 * inputs do not hold n serialized copies of them (fetch streams a Blob and
 * sets its length); without, the JSON text, which fetch sends in one write
 * with the headers (a Blob goes out as a stream, a few writes per call).
 */
export function buildResponsesBody(input: ResponsesBodyInput): string | Blob {
  const { tool } = input;
  const imageTool: BodyObject = {
    type: 'image_generation',
    model: tool.model,
    output_format: tool.format,
    partial_images: tool.partialImages,
  };
  if (tool.size) imageTool.size = tool.size;
  if (tool.quality) imageTool.quality = tool.quality;
  if (tool.moderation) imageTool.moderation = tool.moderation;
  if (tool.background) imageTool.background = tool.background;
  if (tool.outputCompression !== undefined) imageTool.output_compression = tool.outputCompression;
  if (tool.action === 'edit') imageTool.action = 'edit';
  if (input.mask) imageTool.input_image_mask = { image_url: new ImageUrl(input.mask) };

  const content: BodyValue[] = [{ type: 'input_text', text: input.prompt }];
  for (const image of input.images) content.push({ type: 'input_image', image_url: new ImageUrl(image), detail: 'auto' });

  const tools: BodyValue[] = [imageTool];
  if (input.webSearch) tools.push({ type: 'web_search' });

  const body: BodyObject = {
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
  const parts: BlobPart[] = [];
  serialize(body, parts);
  return parts.length === 1 && typeof parts[0] === 'string' ? parts[0] : new Blob(parts, { type: 'application/json' });
}
