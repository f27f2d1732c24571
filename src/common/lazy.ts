/**
 * A module-level value built on first use, and the same value from then on.
 *
 * Why: the API's zod schemas are some three thousand objects; built when their
 * modules load they were about 35 ms of every start (`svc serve`, and every
 * `svc` command), for requests that may never come. Declared with `lazy`, a
 * schema is built by the first request (or schema) that reads it.
 *
 * The answer stands in for the value itself (a Proxy that forwards every
 * operation to it), so readers use it as they would the value: parse with it,
 * compose it into other schemas, spread a shape of fields. Only identity
 * differs: the stand-in is not `===` the built value. A schema whose own root
 * carries `.describe()` or `.meta()` is therefore declared eagerly, because
 * zod looks that metadata up by identity (z.toJSONSchema); so is what is given
 * to another library (the MCP server's schemas), and a record of schemas read
 * by name on a hot path holds lazy entries rather than being lazy itself (each
 * operation on a stand-in is one more call).
 */
export function lazy<T extends object>(build: () => T): T {
  let value: T | undefined;
  const built = (): T => (value ??= build());
  // The target is never the value: a Proxy's invariants tie it to its target's own non-configurable
  // properties (zod's `_zod` is one), so descriptors are reported configurable and read from the value.
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = built();
      return Reflect.get(target, key, target);
    },
    has: (_, key) => Reflect.has(built(), key),
    set: (_, key, next) => {
      const target = built();
      return Reflect.set(target, key, next, target);
    },
    ownKeys: () => Reflect.ownKeys(built()),
    getOwnPropertyDescriptor: (_, key) => {
      // A fresh object each call: marked configurable in place.
      const descriptor = Reflect.getOwnPropertyDescriptor(built(), key);
      if (descriptor) descriptor.configurable = true;
      return descriptor;
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(built(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(built(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(built()),
  });
}
