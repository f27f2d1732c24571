import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../common/errors.js';
import { resolveModel } from './models.js';
import { sizeProblem } from './controls.js';

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
    expect(resolveModel('api', undefined).id).toBe('lang-5.6-luna');
    expect(resolveModel('oauth', undefined).id).toBe('lang-6-luna');
    expect(resolveModel('beta-api', undefined).upstreamId).toBe('beta-3.1-flash-image');
    expect(resolveModel('alpha', undefined, 'video').id).toBe('alpha-video-1.5');
  });

  it('maps api ids onto the oauth lane', () => {
    expect(resolveModel('oauth', 'lang-5.6-sol').id).toBe('lang-6-sol');
    expect(resolveModel('oauth', 'lang-5.6-luna').id).toBe('lang-6-luna');
    expect(resolveModel('oauth', 'lang-5.6-terra').id).toBe('lang-6-luna');
    expect(resolveModel('oauth', 'lang-5.4-mini').id).toBe('lang-6-luna');
    expect(resolveModel('oauth', 'lang-6-astra').id).toBe('lang-6-astra');
    expect(resolveModel('api', 'lang-5.6-sol').id).toBe('lang-5.6-sol');
  });

  it('accepts the video compatibility alias', () => {
    const resolved = resolveModel('alpha-api', 'alpha-video-1.5-preview', 'video');
    expect(resolved).toMatchObject({ requested: 'alpha-video-1.5-preview', id: 'alpha-video-1.5' });
  });

  it('tells an unknown model from one that cannot make images here', () => {
    expect(codeOf(() => resolveModel('api', 'lang-99'))).toBe('INVALID_IMAGE_MODEL');
    expect(codeOf(() => resolveModel('api', 'alpha-video'))).toBe('IMAGE_MODEL_UNSUPPORTED');
    expect(codeOf(() => resolveModel('api', 'lang-6-luna'))).toBe('IMAGE_MODEL_UNSUPPORTED');
    expect(codeOf(() => resolveModel('beta-api', 'nano-fruit-3'))).toBe('INVALID_BETA_API_IMAGE_MODEL');
    expect(codeOf(() => resolveModel('alpha', 'alpha-image-9'))).toBe('INVALID_ALPHA_IMAGE_MODEL');
    expect(codeOf(() => resolveModel('cligen', 'nano-fruit-pro'))).toBe('IMAGE_MODEL_UNSUPPORTED');
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
