import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazy } from './lazy.js';

describe('lazy', () => {
  it('builds on first use, once', () => {
    let builds = 0;
    const schema = lazy(() => {
      builds += 1;
      return z.object({ name: z.string() });
    });
    expect(builds).toBe(0);
    expect(schema.parse({ name: 'a' })).toEqual({ name: 'a' });
    expect(schema.safeParse({ name: 1 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('stands in for a schema wherever zod takes one, with the same answers and JSON Schema as the schema built at once', () => {
    const fields = { size: z.string().min(1), count: z.number().int().optional() };
    const eagerItem = z.object(fields).strict();
    const eager = z
      .object({ item: eagerItem, items: z.array(eagerItem), kind: z.enum(['a', 'b']) })
      .extend({ extra: eagerItem.optional() });

    const lazyFields = lazy(() => ({ size: z.string().min(1), count: z.number().int().optional() }));
    const lazyItem = lazy(() => z.object({ ...lazyFields }).strict());
    const lazyKind = lazy(() => z.enum(['a', 'b']));
    const built = lazy(() => z.object({ item: lazyItem, items: z.array(lazyItem), kind: lazyKind }).extend({ extra: lazyItem.optional() }));

    for (const input of [
      { item: { size: 's' }, items: [], kind: 'a' },
      { item: { size: 's', count: 2 }, items: [{ size: 't' }], kind: 'b', extra: { size: 'u' } },
      { item: { size: '' }, items: [], kind: 'a' },
      { item: { size: 's', typo: 1 }, items: [], kind: 'a' },
      { item: { size: 's' }, items: [], kind: 'c' },
    ]) {
      const a = eager.safeParse(input);
      const b = built.safeParse(input);
      expect(b.success).toBe(a.success);
      expect(b.error?.issues).toEqual(a.error?.issues);
      expect(b.data).toEqual(a.data);
    }
    expect(z.toJSONSchema(built)).toEqual(z.toJSONSchema(eager));
    expect(Object.keys(lazyFields)).toEqual(['size', 'count']);
    expect(Object.keys(built.shape)).toEqual(Object.keys(eager.shape));
    expect(lazyKind.options).toEqual(['a', 'b']);
    expect(lazyItem instanceof z.ZodObject).toBe(true);
  });
});
