import { describe, expect, it } from 'vitest';
import { brokenJsonBound } from '../../src/common/json-bounds.js';
import { ownValue } from '../../src/common/own.js';
import { maskSecretsIn } from '../../src/common/secrets.js';

// Issue 45 item 9, the sweep: every walk over a user's or a vendor's document
// is bounded (a 100,000-deep value overflows no stack), and a key a user chose
// names only an own property.

const deep = (levels: number, leaf: unknown): unknown => {
  let value = leaf;
  for (let level = 0; level < levels; level += 1) value = { inner: value };
  return value;
};

describe('walks over deep documents', () => {
  it('brokenJsonBound walks 100,000 levels without recursion and names where the bound broke', () => {
    expect(brokenJsonBound(deep(100_000, 1), { maxDepth: 64 })).toEqual({
      bound: 'depth',
      max: 64,
      path: 'inner.inner.inner.inner.inner.inner.inner.inner.…',
    });
    expect(brokenJsonBound(deep(64, 1), { maxDepth: 64 })).toBeUndefined();
    expect(brokenJsonBound({ a: [1, 2, 3] }, { maxDepth: 8, maxValues: 4 })?.bound).toBe('values');
    expect(brokenJsonBound({ a: 'x'.repeat(11) }, { maxDepth: 8, maxStringLength: 10 })).toEqual({
      bound: 'stringLength',
      max: 10,
      path: 'a',
    });
  });

  it('masking secrets in a 100,000-deep value neither overflows nor keeps what lies past its bound', () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
    const masked = JSON.stringify(maskSecretsIn(deep(100_000, secret)));
    expect(masked).toContain('[nested too deep]');
    expect(masked).not.toContain(secret);
  });

  it('ownValue names only own properties', () => {
    const record: Record<string, number> = { a: 1 };
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) expect(ownValue(record, key)).toBeUndefined();
    expect(ownValue(record, 'a')).toBe(1);
  });
});
