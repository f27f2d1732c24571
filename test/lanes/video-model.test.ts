import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ServiceError } from '../../src/common/errors.js';
import { capabilities } from '../../src/studio/catalog/capabilities.js';
import { LANE_MODULES, LANES } from '../../src/studio/catalog/registry.js';
import type { StudioContext } from '../../src/studio/context.js';
import type { LaneEnv } from '../../src/studio/lanes/env.js';
import { clipLimits, durationFits, planByLimits } from '../../src/studio/lanes/video-limits.js';
import type { VideoModel, VideoModelSpec, VideoPlanRequest } from '../../src/studio/lanes/video-model.js';
import { videoTarget } from '../../src/studio/video/target.js';

// The video capability as a contract: every lane's VideoModel is consistent
// with itself and with the lane's model list; the alpha lanes' plan keeps the
// spec's rules and codes; a lane without rules of its own is checked against
// its declared limits; the lane choice of a video request; and GET
// /api/capabilities lists each lane's capabilities and video models.

const env = (values: Record<string, string> = {}): LaneEnv => ({ env: values, settings: { get: () => ({}) } }) as unknown as LaneEnv;

/** A studio context with no alpha session, an alpha key and a zeta token: enough for the lane choice. */
const studio = (saved: Record<string, unknown> = {}): StudioContext =>
  ({
    env: { ZETA_MCP_TOKEN: 'zeta-token' },
    settings: { get: () => saved },
    sessionFile: () => '/nonexistent/alpha-auth.json',
    key: () => ({ value: 'alpha-key', source: 'env' }),
    configuredUpstreamUrl: () => undefined,
    secrets: { add: () => undefined },
  }) as unknown as StudioContext;

/** The code a call refuses with. */
function codeOf(run: () => unknown): { code: string; details: Record<string, unknown> | undefined } {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
}

const videoLanes = LANE_MODULES.filter((lane): lane is typeof lane & { video: VideoModel } => lane.video !== undefined);

describe('every lane video model (contract)', () => {
  it('includes the alpha lanes', () => {
    expect(videoLanes.map((lane) => lane.id)).toEqual(expect.arrayContaining(['alpha', 'alpha-api']));
  });

  for (const lane of videoLanes) {
    it(`${lane.id}: its models, default, aliases and limits hold together and its model list shows them`, () => {
      const { video } = lane;
      expect(video.specificationVersion).toBe('v1');
      const ids = video.models.map((model) => model.id);
      // A lane whose catalog is read live (eta) lists none before the read; every other lane declares its models.
      if (!lane.models.discover) {
        expect(ids.length).toBeGreaterThan(0);
        expect(ids).toContain(video.defaultModel);
        expect(new Set(lane.models.list.filter((model) => model.kind === 'video').map((model) => model.id))).toEqual(new Set(ids));
      }
      expect(new Set(ids).size).toBe(ids.length);
      for (const target of Object.values(video.aliases ?? {})) expect(ids).toContain(target);
      for (const model of video.models) {
        const { limits } = model;
        expect(limits.modes.length, model.id).toBeGreaterThan(0);
        expect(durationFits(limits.durations, limits.defaultDuration), `${model.id} default duration`).toBe(true);
        if (limits.defaultResolution !== undefined) expect(limits.resolutions).toContain(limits.defaultResolution);
        for (const mode of limits.modes) {
          const own = clipLimits(limits, mode);
          for (const resolution of own.resolutions) expect(limits.resolutions, `${model.id} ${mode}`).toContain(resolution);
        }
        if (limits.modes.includes('reference-to-video')) expect(limits.references, `${model.id} reference bounds`).toBeDefined();
      }
      const intervals = video.pollIntervalsMs(env());
      expect(intervals.length).toBeGreaterThan(0);
      expect(intervals.every((ms) => ms > 0)).toBe(true);
      expect(video.budgetMs(env())).toBeGreaterThan(0);
    });
  }
});

const alpha = LANES.alpha.video as VideoModel;
const model = (id: string): VideoModelSpec => alpha.models.find((entry) => entry.id === id) as VideoModelSpec;
const request = (fields: Partial<VideoPlanRequest> & { model?: VideoModelSpec } = {}): VideoPlanRequest => ({
  operation: 'generate',
  model: model('alpha-video-1.5'),
  requested: fields.model?.id ?? 'alpha-video-1.5',
  clips: [{ prompt: 'waves', field: 'duration' }],
  storyboard: false,
  references: 0,
  options: {},
  ...fields,
});
const plan = (fields: Partial<VideoPlanRequest> = {}) => (alpha.plan as NonNullable<VideoModel['plan']>)(env(), request(fields));

describe("the alpha lanes' plan: the spec's video rules", () => {
  it('defaults: 6 s, 480p, the planner alpha-4.3, text-to-video on the asked model', () => {
    expect(plan()).toMatchObject({
      plannerModel: 'alpha-4.3',
      resolution: '480p',
      clips: [{ duration: 6, mode: 'text-to-video', model: { requested: 'alpha-video-1.5', id: 'alpha-video-1.5' } }],
    });
  });

  it('reference-to-video runs on the base model, keeping what was asked; its 1080p and durations are refused with the rule', () => {
    expect(plan({ references: 2 }).clips[0]).toMatchObject({
      mode: 'reference-to-video',
      model: { requested: 'alpha-video-1.5', id: 'alpha-video' },
    });
    expect(codeOf(() => plan({ references: 2, resolution: '1080p' }))).toMatchObject({
      code: 'VIDEO_RESOLUTION_UNSUPPORTED',
      details: { valid: ['480p', '720p'] },
    });
    expect(
      codeOf(() => plan({ model: model('alpha-video'), references: 3, clips: [{ prompt: 'x', duration: 11, field: 'duration' }] })),
    ).toMatchObject({ code: 'VIDEO_DURATION_OUT_OF_RANGE', details: { max: 10, got: 11 } });
    expect(plan({ references: 3, clips: [{ prompt: 'x', duration: 15, field: 'duration' }] }).clips[0].duration).toBe(15);
    expect(codeOf(() => plan({ references: 15 }))).toMatchObject({ code: 'VIDEO_REFERENCES_TOO_MANY', details: { max: 14, got: 15 } });
  });

  it('1080p only on alpha-video-1.5; 16 s, bad ratios and planners refused with their codes', () => {
    expect(plan({ resolution: '1080p', references: 1 }).resolution).toBe('1080p');
    expect(codeOf(() => plan({ model: model('alpha-video'), requested: 'alpha-video', resolution: '1080p' })).code).toBe(
      'VIDEO_RESOLUTION_UNSUPPORTED',
    );
    expect(codeOf(() => plan({ clips: [{ prompt: 'x', duration: 16, field: 'duration' }] }))).toMatchObject({
      code: 'VIDEO_DURATION_OUT_OF_RANGE',
      details: { field: 'duration', max: 15 },
    });
    expect(codeOf(() => plan({ aspectRatio: '21:9' })).code).toBe('VIDEO_ASPECT_RATIO_UNSUPPORTED');
    expect(codeOf(() => plan({ plannerModel: 'alpha-9' })).code).toBe('INVALID_ALPHA_PLANNER_MODEL');
    expect(codeOf(() => plan({ options: { fps: 30 } })).code).toBe('BAD_REQUEST');
  });

  it("a storyboard's later clips start from a frame (image-to-video); edits over 8.7 s are refused; extensions run on the base model", () => {
    const board = plan({
      storyboard: true,
      references: 2,
      clips: [
        { prompt: 'a', field: 'storyboard.clips.0.duration' },
        { prompt: 'b', duration: 3, field: 'storyboard.clips.1.duration' },
      ],
    });
    expect(board.clips.map((clip) => [clip.mode, clip.model.id])).toEqual([
      ['reference-to-video', 'alpha-video'],
      ['image-to-video', 'alpha-video-1.5'],
    ]);
    expect(codeOf(() => plan({ operation: 'edit', source: { filename: 'v.mp4', seconds: 9 } }))).toMatchObject({
      code: 'VIDEO_SOURCE_TOO_LONG',
      details: { max: 8.7, got: 9 },
    });
    expect(plan({ operation: 'edit', source: { filename: 'v.mp4', seconds: 4.4 } }).clips[0]).toMatchObject({
      mode: 'video-to-video',
      duration: 4,
      model: { id: 'alpha-video' },
    });
    expect(plan({ operation: 'extend', clips: [{ prompt: 'on', duration: 3, field: 'duration' }] }).clips[0]).toMatchObject({
      mode: 'extension',
      duration: 3,
      model: { id: 'alpha-video' },
    });
  });
});

describe('a lane without rules of its own: its declared limits', () => {
  const clipModel: VideoModelSpec = {
    id: 'clip-1',
    description: 'A test model.',
    limits: {
      modes: ['text-to-video', 'image-to-video'],
      durations: { values: [5, 10] },
      defaultDuration: 5,
      resolutions: ['720p'],
      aspectRatios: ['16:9', '9:16'],
    },
    options: z.object({ generateAudio: z.boolean().optional() }).strict(),
  };
  const limited = (fields: Partial<VideoPlanRequest>) => planByLimits({ ...request({ model: clipModel }), requested: 'clip-1', ...fields });

  it('fills the defaults and passes its options', () => {
    expect(limited({ options: { generateAudio: false } })).toEqual({
      clips: [{ prompt: 'waves', duration: 5, mode: 'text-to-video', model: { requested: 'clip-1', id: 'clip-1', upstreamId: 'clip-1' } }],
      resolution: '720p',
      options: { generateAudio: false },
    });
  });

  it('refuses what the model does not declare, naming the allowed values', () => {
    expect(codeOf(() => limited({ clips: [{ prompt: 'x', duration: 7, field: 'duration' }] }))).toMatchObject({
      code: 'VIDEO_DURATION_OUT_OF_RANGE',
      details: { valid: [5, 10], got: 7 },
    });
    expect(codeOf(() => limited({ references: 2 }))).toMatchObject({
      code: 'VIDEO_MODE_UNSUPPORTED',
      details: { mode: 'reference-to-video' },
    });
    expect(codeOf(() => limited({ resolution: '1080p' }))).toMatchObject({
      code: 'VIDEO_RESOLUTION_UNSUPPORTED',
      details: { valid: ['720p'] },
    });
    expect(codeOf(() => limited({ aspectRatio: '4:3' }))).toMatchObject({
      code: 'VIDEO_ASPECT_RATIO_UNSUPPORTED',
      details: { valid: ['16:9', '9:16'] },
    });
    expect(codeOf(() => limited({ options: { fps: 30 } }))).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'options' } });
    expect(codeOf(() => limited({ operation: 'edit', source: { filename: 'v.mp4', seconds: 3 } })).code).toBe(
      'VIDEO_OPERATION_UNSUPPORTED',
    );
  });
});

describe('the lane of a video request', () => {
  it('without provider or model: alpha when its session exists, else alpha-api; the saved target wins', () => {
    expect(videoTarget(studio(), {})).toMatchObject({
      lane: { id: 'alpha-api' },
      model: { id: 'alpha-video-1.5' },
      requested: 'alpha-video-1.5',
    });
    expect(videoTarget(studio({ defaults: { video: { lane: 'alpha-api', model: 'alpha-video' } } }), {})).toMatchObject({
      lane: { id: 'alpha-api' },
      model: { id: 'alpha-video' },
    });
  });

  it('a zeta video model by its lane prefix (zeta/<model>) runs on zeta', () => {
    expect(videoTarget(studio(), { model: 'zeta/seedance-2' })).toMatchObject({
      lane: { id: 'zeta' },
      model: { id: 'seedance-2' },
      requested: 'seedance-2',
    });
    expect(videoTarget(studio(), { provider: 'zeta' })).toMatchObject({ lane: { id: 'zeta' }, model: { id: 'seedance-2' } });
    expect(codeOf(() => videoTarget(studio(), { model: 'zeta/alpha-video' }))).toMatchObject({
      code: 'INVALID_VIDEO_MODEL',
      details: { lane: 'zeta' },
    });
  });

  it('the lane prefix of a model id names the lane; aliases resolve; other lanes are refused with their codes', () => {
    expect(videoTarget(studio(), { model: 'alpha-api/alpha-video-1.5-preview' })).toMatchObject({
      lane: { id: 'alpha-api' },
      model: { id: 'alpha-video-1.5' },
      requested: 'alpha-video-1.5-preview',
    });
    expect(codeOf(() => videoTarget(studio(), { provider: 'alpha-api', model: 'alpha/alpha-video' })).code).toBe('INVALID_VIDEO_MODEL');
    expect(codeOf(() => videoTarget(studio(), { provider: 'alpha-api', model: 'alpha-image' }))).toMatchObject({
      code: 'INVALID_VIDEO_MODEL',
      details: { valid: ['alpha-video', 'alpha-video-1.5'] },
    });
    expect(codeOf(() => videoTarget(studio(), { provider: 'cligen' }))).toMatchObject({
      code: 'CLIGEN_VIDEO_UNSUPPORTED',
      details: { valid: videoLanes.map((lane) => lane.id) },
    });
    expect(codeOf(() => videoTarget(studio(), { provider: 'gamma' }))).toMatchObject({
      code: 'VIDEO_PROVIDER_UNSUPPORTED',
      details: { provider: 'gamma', valid: videoLanes.map((lane) => lane.id) },
    });
  });
});

describe('GET /api/capabilities: capabilities and video models per lane', () => {
  const body = capabilities('test');
  const entry = (id: string) =>
    body.providers.find((provider) => provider.id === id) as Extract<(typeof body.providers)[number], { routingMode: false }>;

  it('lists each lane its capabilities, video lanes with their models and limits', () => {
    expect(entry('alpha').capabilities).toEqual([
      'image',
      'edit',
      'video',
      ...(entry('alpha').capabilities.includes('text') ? ['text'] : []),
    ]);
    expect(entry('cligen').capabilities).not.toContain('video');
    expect(entry('cligen').video).toBeNull();
    const video = entry('alpha-api').video;
    expect(video?.defaultModel).toBe('alpha-video-1.5');
    expect(video?.aliases).toEqual({ 'alpha-video-1.5-preview': 'alpha-video-1.5' });
    expect(video?.models.find((model) => model.id === 'alpha-video-1.5')?.limits).toMatchObject({
      modes: ['text-to-video', 'image-to-video', 'reference-to-video'],
      durations: { min: 1, max: 15 },
      resolutions: ['480p', '720p', '1080p'],
      references: { min: 2, max: 14 },
      byMode: { 'reference-to-video': { durations: { min: 1, max: 15 }, resolutions: ['480p', '720p'] } },
      edit: { maxSourceSeconds: 8.7 },
    });
    expect(video?.models.find((model) => model.id === 'alpha-video')?.limits).toMatchObject({
      resolutions: ['480p', '720p'],
      byMode: { 'reference-to-video': { durations: { min: 1, max: 10 } } },
    });
    for (const lane of videoLanes) expect(entry(lane.id).capabilities).toContain('video');
  });
});
