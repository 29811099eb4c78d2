// JSON of values that carry bigints.

/** A value as JSON carries it: bigints (amounts) become base-10 strings, at any depth. */
export const toJson = (v: unknown): unknown =>
  typeof v === 'bigint'
    ? v.toString()
    : Array.isArray(v)
      ? v.map(toJson)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]))
        : v;
