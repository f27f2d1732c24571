import { STORYBOARD_CLIPS, videoModeOf, type CapabilitiesBody, type VideoLimitsBody, type VideoMode } from '../../api/contract';
import { lanesOf } from '../../api/queries';

// The Video view's form and the rules that narrow its pickers: the mode comes
// from the reference count, and the durations, resolutions and aspect ratios
// offered are those the chosen model declares for that mode (GET
// /api/capabilities: each video lane's models with their limits; the server
// checks the same limits, the alpha lanes by the spec's rules).

export interface VideoReference {
  id: string;
  name: string;
  dataUrl: string;
}

export interface StoryboardClip {
  id: string;
  prompt: string;
  duration: number;
}

export interface VideoForm {
  prompt: string;
  /** '' = the studio's default video lane (the first group is shown as chosen). */
  provider: string;
  model: string;
  duration: number;
  /** '' = the model takes none. */
  resolution: string;
  /** '' = the lane's default, or the image's own. */
  aspectRatio: string;
  references: VideoReference[];
  /** Set: the clips run in order under one job. */
  storyboard?: StoryboardClip[];
}

export interface VideoModelChoice {
  id: string;
  label?: string;
  description: string;
  limits: VideoLimitsBody;
}

/** A video lane and its models, its default first. */
export interface VideoLaneChoice {
  lane: string;
  label: string;
  defaultModel: string;
  models: VideoModelChoice[];
}

/** Every built lane with video models, in the catalog's order. */
export function videoLaneChoices(capabilities: CapabilitiesBody): VideoLaneChoice[] {
  return lanesOf(capabilities).flatMap((lane) => {
    const { video } = lane;
    // A lane whose catalog is read live lists none until it is read (eta): no group.
    if (!lane.built || !video || video.models.length === 0) return [];
    const models = [...video.models].sort((a, b) => Number(b.id === video.defaultModel) - Number(a.id === video.defaultModel));
    return [{ lane: lane.id, label: lane.label, defaultModel: video.defaultModel, models }];
  });
}

/** The lane the form runs on (its provider, else the first: the default). */
export const laneOfForm = (form: VideoForm, choices: readonly VideoLaneChoice[]): VideoLaneChoice | undefined =>
  choices.find((choice) => choice.lane === form.provider) ?? choices[0];

/** The chosen model's limits. */
export function limitsOfForm(form: VideoForm, choices: readonly VideoLaneChoice[]): VideoLimitsBody | undefined {
  const lane = laneOfForm(form, choices);
  return (lane?.models.find((model) => model.id === form.model) ?? lane?.models[0])?.limits;
}

let ids = 0;
export const nextId = (prefix: string) => `${prefix}-${++ids}`;

const defaultResolution = (limits: VideoLimitsBody): string => limits.defaultResolution ?? limits.resolutions[0] ?? '';

/** A new form on a lane's default model (provider '' = the studio's default lane). */
export const emptyForm = (choice: VideoLaneChoice | undefined, provider = ''): VideoForm => {
  const model = choice?.models.find((entry) => entry.id === choice.defaultModel) ?? choice?.models[0];
  return {
    prompt: '',
    provider,
    model: model?.id ?? '',
    duration: model?.limits.defaultDuration ?? 6,
    resolution: model ? defaultResolution(model.limits) : '',
    aspectRatio: '',
    references: [],
  };
};

export const newClip = (duration: number): StoryboardClip => ({ id: nextId('clip'), prompt: '', duration });

export const modeOfForm = (form: VideoForm): VideoMode => videoModeOf(form.references.length);

const secondsOf = (durations: VideoLimitsBody['durations']): number[] =>
  'values' in durations
    ? [...durations.values]
    : Array.from({ length: durations.max - durations.min + 1 }, (_, index) => durations.min + index);

export interface Allowed {
  mode: VideoMode;
  /** The model takes this mode. */
  modeTaken: boolean;
  durations: number[];
  resolutions: string[];
  aspectRatios: string[];
  /** Most references: reference-to-video's maximum, else 1 when it starts from an image, else none. */
  maxReferences: number;
}

/** What the pickers offer now. */
export function allowed(form: VideoForm, limits: VideoLimitsBody): Allowed {
  const mode = modeOfForm(form);
  const own = limits.byMode?.[mode];
  return {
    mode,
    modeTaken: (limits.modes as string[]).includes(mode),
    durations: secondsOf(own?.durations ?? limits.durations),
    resolutions: own?.resolutions ?? limits.resolutions,
    aspectRatios: limits.aspectRatios,
    maxReferences: limits.references?.max ?? (limits.modes.includes('image-to-video') ? 1 : 0),
  };
}

/** The nearest allowed length at or under `seconds` (else the shortest). */
const fitSeconds = (seconds: number, durations: number[]): number =>
  [...durations].reverse().find((value) => value <= seconds) ?? durations[0] ?? seconds;

/** The form with every choice moved inside what the model allows (after a change of model or references). */
export function withinRules(form: VideoForm, limits: VideoLimitsBody | undefined): VideoForm {
  if (!limits) return form;
  const { durations, resolutions, aspectRatios } = allowed(form, limits);
  return {
    ...form,
    duration: fitSeconds(form.duration, durations),
    resolution: resolutions.includes(form.resolution)
      ? form.resolution
      : resolutions.includes(defaultResolution(limits))
        ? defaultResolution(limits)
        : (resolutions[0] ?? ''),
    aspectRatio: aspectRatios.includes(form.aspectRatio) ? form.aspectRatio : '',
    storyboard: form.storyboard?.map((clip) => ({ ...clip, duration: fitSeconds(clip.duration, durations) })),
  };
}

/** Why the form cannot run now, or undefined. */
export function blocker(form: VideoForm, limits: VideoLimitsBody | undefined): string | undefined {
  if (!limits) return 'No video model is available.';
  const { mode, modeTaken } = allowed(form, limits);
  if (!modeTaken) return `${form.model} does not do ${mode.replace(/-/g, ' ')} (it does: ${limits.modes.join(', ')}).`;
  if (form.storyboard) {
    if (form.storyboard.length < STORYBOARD_CLIPS.min) return `A storyboard has at least ${STORYBOARD_CLIPS.min} clips.`;
    if (form.storyboard.some((clip) => clip.prompt.trim() === '')) return 'Every clip needs its prompt.';
    return undefined;
  }
  if (form.prompt.trim() === '') return 'Write a prompt first.';
  return undefined;
}

/** The POST /api/video/generate body. */
export function requestBody(form: VideoForm): Record<string, unknown> {
  return {
    ...(form.prompt.trim() ? { prompt: form.prompt.trim() } : {}),
    ...(form.provider ? { provider: form.provider } : {}),
    model: form.model,
    duration: form.duration,
    ...(form.resolution ? { resolution: form.resolution } : {}),
    ...(form.aspectRatio ? { aspectRatio: form.aspectRatio } : {}),
    ...(form.references.length > 0
      ? { references: form.references.map((reference) => ({ data: reference.dataUrl, name: reference.name })) }
      : {}),
    ...(form.storyboard
      ? { storyboard: { clips: form.storyboard.map((clip) => ({ prompt: clip.prompt.trim(), duration: clip.duration })) } }
      : {}),
  };
}
