import { STORYBOARD_CLIPS, VIDEO_DEFAULT_RESOLUTION, VIDEO_DEFAULT_SECONDS, videoMaxSeconds, videoModeOf, videoResolutionsFor, type VideoMode } from '../../api/contract';

// The Video view's form and the rules that narrow its pickers: the mode comes
// from the reference count, and the durations and resolutions offered are
// those the server's rules allow for that mode and model (the same functions).

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
  /** '' = the studio's default video lane. */
  provider: string;
  model: string;
  duration: number;
  resolution: string;
  /** '' = 16:9 for text, the image's own otherwise. */
  aspectRatio: string;
  references: VideoReference[];
  /** Set: the clips run in order under one job. */
  storyboard?: StoryboardClip[];
}

let ids = 0;
export const nextId = (prefix: string) => `${prefix}-${++ids}`;

export const emptyForm = (model: string): VideoForm => ({ prompt: '', provider: '', model, duration: VIDEO_DEFAULT_SECONDS, resolution: VIDEO_DEFAULT_RESOLUTION, aspectRatio: '', references: [] });

export const newClip = (duration = VIDEO_DEFAULT_SECONDS): StoryboardClip => ({ id: nextId('clip'), prompt: '', duration });

export const modeOfForm = (form: VideoForm): VideoMode => videoModeOf(form.references.length);

/** What the pickers offer now. */
export function allowed(form: VideoForm): { mode: VideoMode; durations: number[]; resolutions: string[] } {
  const mode = modeOfForm(form);
  const max = videoMaxSeconds(mode, form.model);
  return { mode, durations: Array.from({ length: max }, (_, index) => index + 1), resolutions: videoResolutionsFor(mode, form.model) };
}

/** The form with every choice moved inside what the rules allow (after a change of model or references). */
export function withinRules(form: VideoForm): VideoForm {
  const { durations, resolutions } = allowed(form);
  const max = durations.length;
  return {
    ...form,
    duration: Math.min(form.duration, max),
    resolution: resolutions.includes(form.resolution) ? form.resolution : VIDEO_DEFAULT_RESOLUTION,
    storyboard: form.storyboard?.map((clip) => ({ ...clip, duration: Math.min(clip.duration, max) })),
  };
}

/** Why the form cannot run now, or undefined. */
export function blocker(form: VideoForm): string | undefined {
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
    resolution: form.resolution,
    ...(form.aspectRatio ? { aspectRatio: form.aspectRatio } : {}),
    ...(form.references.length > 0 ? { references: form.references.map((reference) => ({ data: reference.dataUrl, name: reference.name })) } : {}),
    ...(form.storyboard ? { storyboard: { clips: form.storyboard.map((clip) => ({ prompt: clip.prompt.trim(), duration: clip.duration })) } } : {}),
  };
}
