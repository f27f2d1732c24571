// The simulated zeta server's models, as its tool schemas declare them
// (contract: zeta-eta-source-usage §1.1). Written from the contract, apart from
// the studio's catalog, so a studio catalog that drifts from the vendor's is
// caught by the tests against this simulator.

export interface ZetaSimModel {
  readonly id: string;
  readonly kind: 'image' | 'video';
  readonly aspectRatios: readonly string[];
}

const VIDEO_RATIOS = ['16:9', '9:16', '1:1'];

export const ZETA_SIM_MODELS: readonly ZetaSimModel[] = [
  { id: 'nano-banana-pro', kind: 'image', aspectRatios: ['auto', '21:9', '16:9', '4:3', '1:1', '3:4', '9:16'] },
  { id: 'gpt-image-2', kind: 'image', aspectRatios: ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'] },
  { id: 'gen-4', kind: 'image', aspectRatios: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'] },
  { id: 'seedance-2', kind: 'video', aspectRatios: VIDEO_RATIOS },
  { id: 'kling-o3-pro', kind: 'video', aspectRatios: VIDEO_RATIOS },
  { id: 'kling-3-pro', kind: 'video', aspectRatios: VIDEO_RATIOS },
  { id: 'gen-4.5', kind: 'video', aspectRatios: VIDEO_RATIOS },
  { id: 'veo-3.1', kind: 'video', aspectRatios: VIDEO_RATIOS },
  { id: 'gen-4-turbo', kind: 'video', aspectRatios: VIDEO_RATIOS },
];

/** §1: the model a call without one gets, per kind. */
export const ZETA_SIM_DEFAULT_MODELS = { image: 'nano-banana-pro', video: 'seedance-2' } as const;
