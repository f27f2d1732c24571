import { describe, expect, it } from 'vitest';
import { maskSecrets } from './secrets.js';

describe('maskSecrets', () => {
  it('masks bearer values, JWTs, key-shaped values and long token runs', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl';
    const text = `Invalid header: Bearer sk-proj-REALSECRET1234567890; token ${jwt}; key pst-abcdefgh12345; blob ${'A'.repeat(40)}`;
    const masked = maskSecrets(text);
    expect(masked).not.toContain('REALSECRET');
    expect(masked).not.toContain(jwt);
    expect(masked).not.toContain('pst-abcdefgh12345');
    expect(masked).not.toContain('A'.repeat(40));
    expect(masked).toContain('Bearer [redacted]');
  });

  it('removes the exact credential a call sent, and leaves ordinary words alone', () => {
    expect(maskSecrets('your key abc123xyz was refused', ['abc123xyz'])).toBe('your key [redacted] was refused');
    expect(maskSecrets('task-x failed: the prompt is too long')).toBe('task-x failed: the prompt is too long');
  });
});
