import { describe, expect, it } from 'vitest';
import { laneOptions } from './generate.js';

describe('--option name=value', () => {
  it('sends JSON-looking values as JSON and the rest as text', () => {
    expect(laneOptions(['aspectRatio=16:9', 'steps=28', 'autoSmea=true', 'seed=null', 'sampler=k_euler', 'label="42"'])).toEqual({
      aspectRatio: '16:9',
      steps: 28,
      autoSmea: true,
      seed: null,
      sampler: 'k_euler',
      label: '42',
    });
    expect(laneOptions(['list=[1,2]'])).toEqual({ list: '[1,2]' });
    expect(laneOptions([])).toBeUndefined();
  });

  it('refuses a pair without a name', () => {
    expect(() => laneOptions(['=16:9'])).toThrow(/name=value/);
    expect(() => laneOptions(['aspectRatio'])).toThrow(/name=value/);
  });
});
