import { describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.js';
import { resolveModel } from './models.js';
import { sizeProblem } from '../api/index.js';
import { LANES } from './registry.js';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    return (error as ServiceError).code;
  }
  return undefined;
};

describe('resolveModel', () => {
  it('gives each lane its default', () => {
    expect(resolveModel(LANES['api'], undefined).id).toBe('lang-5.6-luna');
    expect(resolveModel(LANES['oauth'], undefined).id).toBe('lang-6-luna');
    expect(resolveModel(LANES['beta-api'], undefined).upstreamId).toBe('beta-3.1-flash-image');
    expect(resolveModel(LANES['alpha'], undefined, 'video').id).toBe('alpha-video-1.5');
  });

  it('maps api ids onto the oauth lane', () => {
    expect(resolveModel(LANES['oauth'], 'lang-5.6-sol').id).toBe('lang-6-sol');
    expect(resolveModel(LANES['oauth'], 'lang-5.6-luna').id).toBe('lang-6-luna');
    expect(resolveModel(LANES['oauth'], 'lang-5.6-terra').id).toBe('lang-6-luna');
    expect(resolveModel(LANES['oauth'], 'lang-5.4-mini').id).toBe('lang-6-luna');
    expect(resolveModel(LANES['oauth'], 'lang-6-astra').id).toBe('lang-6-astra');
    expect(resolveModel(LANES['api'], 'lang-5.6-sol').id).toBe('lang-5.6-sol');
  });

  it('accepts the video compatibility alias', () => {
    const resolved = resolveModel(LANES['alpha-api'], 'alpha-video-1.5-preview', 'video');
    expect(resolved).toMatchObject({ requested: 'alpha-video-1.5-preview', id: 'alpha-video-1.5' });
  });

  it('tells an unknown model from one that cannot make images here', () => {
    expect(codeOf(() => resolveModel(LANES['api'], 'lang-99'))).toBe('INVALID_IMAGE_MODEL');
    expect(codeOf(() => resolveModel(LANES['api'], 'alpha-video'))).toBe('IMAGE_MODEL_UNSUPPORTED');
    expect(codeOf(() => resolveModel(LANES['api'], 'lang-6-luna'))).toBe('IMAGE_MODEL_UNSUPPORTED');
    expect(codeOf(() => resolveModel(LANES['beta-api'], 'nano-fruit-3'))).toBe('INVALID_BETA_API_IMAGE_MODEL');
    expect(codeOf(() => resolveModel(LANES['alpha'], 'alpha-image-9'))).toBe('INVALID_ALPHA_IMAGE_MODEL');
    expect(codeOf(() => resolveModel(LANES['cligen'], 'nano-fruit-pro'))).toBe('IMAGE_MODEL_UNSUPPORTED');
  });
});

describe('sizeProblem', () => {
  it('accepts sizes the hosted tool accepts and explains the rest', () => {
    expect(sizeProblem('1024x1024')).toBeUndefined();
    expect(sizeProblem('3840x2160')).toBeUndefined();
    expect(sizeProblem('1000x1000')).toMatch(/multiples of 16/);
    expect(sizeProblem('4096x1024')).toBeDefined();
    expect(sizeProblem('big')).toMatch(/1024x1024/);
  });
});
