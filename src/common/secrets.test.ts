import { describe, expect, it } from 'vitest';
import { maskCredentials, maskCredentialsIn, maskSecrets, SecretRegistry } from './secrets.js';

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

describe('credentials in every spelling', () => {
  const key = 'omni.Key/Echo+Probe=7Qx';
  const base64 = Buffer.from(key).toString('base64');
  const spellings = {
    verbatim: key,
    'URL-encoded': encodeURIComponent(key),
    'form-encoded': new URLSearchParams({ k: key }).toString().slice(2),
    base64,
    base64url: base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    'base64 inside a Basic value': Buffer.from(`user:${key}`).toString('base64'),
    'upper-cased': key.toUpperCase(),
    'lower-cased': key.toLowerCase(),
  };

  it.each(Object.entries(spellings))('masks a known credential echoed %s', (_, spelling) => {
    const masked = maskCredentials(`Incorrect API key provided: ${spelling}.`, [key]);
    expect(masked).toContain('[redacted]');
    // What is left of an encoded form is its edge characters, never the run that decodes to the key.
    expect(masked.length).toBeLessThan(`Incorrect API key provided: ${spelling}.`.length - 8);
    expect(masked.toLowerCase()).not.toContain(key.toLowerCase());
  });

  it('masks what a held registry holds everywhere, until it is released, and nothing too short to be a credential', () => {
    const registry = new SecretRegistry().hold();
    try {
      registry.add(key, 'short');
      expect(maskSecrets(`echo ${encodeURIComponent(key)}`)).toBe('echo [redacted]');
      expect(maskCredentialsIn({ upstreamCode: key.toUpperCase(), list: [`a ${base64}`], n: 3 })).toEqual({
        upstreamCode: '[redacted]',
        list: ['a [redacted]'],
        n: 3,
      });
      expect(maskCredentials('a short word')).toBe('a short word');
    } finally {
      registry.release();
    }
    expect(maskCredentials(`echo ${key}`)).toBe(`echo ${key}`);
  });
});
