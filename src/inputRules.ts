// The input rules, in one place: schema helpers with the spec's patterns, the two ajv instances fastify
// compiles route schemas with (and their extra rules: address checksums, integer widths, canonical query
// numbers), the checks of a request's shape and text before validation, and the mapping from ajv errors
// to the spec's problem codes. Problems name at most MAX_LISTED offending parameters.
import { type TSchema, Type } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type Options } from 'ajv';
import { isAddress } from 'viem';
import { CHAIN_IDS, type ChainId } from './launchpad/chains.ts';
import { ApiError, type ErrorCode, type InvalidParameter } from './errors.ts';

/** Annotation keyword: the problem code for a value outside the schema's enum (e.g. unsupported_chain). */
const INVALID_CODE = 'x-lp-invalid-code';
/** Annotation keyword: the values a patterned string is built from, reported as `allowed`. */
const ALLOWED = 'x-lp-allowed';
/** Keyword: a base-10 integer string must be below 2^bits (the on-chain type it becomes). */
const BITS = 'x-lp-bits';
/** A problem lists at most this many offending parameters, and says how many more there were. */
export const MAX_LISTED = 20;
/** JSON bodies: at most this deep, and this many members (keys and array items) in all. */
export const MAX_BODY_DEPTH = 32;
export const MAX_BODY_MEMBERS = 10_000;

export const UINT_PATTERN = '^(0|[1-9][0-9]*)$';
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';

export const Address = (options: object = {}) =>
  Type.String({
    pattern: ADDRESS_PATTERN,
    format: 'lp-address',
    description: 'EVM address: all lowercase, all uppercase, or with a valid EIP-55 checksum',
    ...options,
  });
/** An unsigned integer string; `bits` is its on-chain width (uint256 unless said), `code` its problem. */
export const Uint = (options: { bits?: number; code?: ErrorCode } & Record<string, unknown> = {}) => {
  const { bits = 256, code, ...rest } = options;
  return Type.String({
    pattern: UINT_PATTERN,
    maxLength: 78,
    [BITS]: bits,
    ...(code ? { [INVALID_CODE]: code } : {}),
    description: `Unsigned integer as a base-10 string, below 2^${bits}`,
    ...rest,
  });
};
export const StringEnum = <const T extends readonly string[]>(values: T, options: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
/** ChainId: an integer; a value outside the four supported chains is `unsupported_chain`, not a format error. */
export const ChainIdSchema = (options: object = {}) =>
  Type.Unsafe<ChainId>({
    type: 'integer',
    enum: [...CHAIN_IDS],
    [INVALID_CODE]: 'unsupported_chain',
    ...options,
  });

const common: Options = {
  allErrors: true,
  verbose: true,
  useDefaults: true,
  removeAdditional: false,
  strict: false,
  keywords: [INVALID_CODE, ALLOWED],
};
/** Query strings and path parameters arrive as text: coerce to the schema's number/boolean types. */
const textAjv = new Ajv({ ...common, coerceTypes: true });
/** JSON bodies are typed already: no coercion, a string is never a number. */
const jsonAjv = new Ajv({ ...common, coerceTypes: false });
for (const ajv of [textAjv, jsonAjv]) {
  // Mixed case is a checksum (EIP-55) and must be right; one case is plain hex.
  ajv.addFormat('lp-address', (v: string) => {
    const hex = v.slice(2);
    return hex === hex.toLowerCase() || hex === hex.toUpperCase() || isAddress(v, { strict: true });
  });
  ajv.addKeyword({
    keyword: BITS,
    type: 'string',
    schemaType: 'number',
    validate: (bits: number, v: string) => !/^[0-9]+$/.test(v) || BigInt(v) < 1n << BigInt(bits),
  });
}

/** Canonical text of a number or boolean in a query or path: what coercion would read the same way. */
const CANONICAL: Record<string, RegExp> = {
  integer: /^(0|-?[1-9][0-9]*)$/,
  number: /^(0|-?[1-9][0-9]*)(\.[0-9]*[1-9])?$/,
  boolean: /^(true|false)$/,
};

export function compileValidator({ schema, httpPart }: { schema: TSchema; httpPart?: string }) {
  if (httpPart === 'body') return jsonAjv.compile(schema);
  const validate = textAjv.compile(schema);
  // Coercion would take 8453.0, 1e2 or 0x10 for numbers and 1 for true: text must be canonical first.
  const typed = Object.entries((schema.properties ?? {}) as Record<string, { type?: string }>).filter(
    ([, p]) => p.type !== undefined && p.type in CANONICAL,
  );
  const check = (data: Record<string, unknown>) => {
    const errors: ErrorObject[] = [];
    for (const [name, p] of typed) {
      const v = data?.[name];
      if (typeof v === 'string' && !(CANONICAL[p.type as string] as RegExp).test(v))
        errors.push({
          keyword: 'canonical',
          instancePath: `/${name}`,
          schemaPath: '',
          params: {},
          message: `must be a canonical ${p.type === 'boolean' ? 'boolean (true or false)' : `${p.type} in base 10`}`,
        });
    }
    if (errors.length > 0) {
      check.errors = errors;
      return false;
    }
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check;
}

function paramName(instancePath: string, prefix: string): string {
  const parts = instancePath.split('/').slice(1);
  let name = prefix;
  for (const part of parts) {
    if (/^\d+$/.test(part)) name += `[${part}]`;
    else name += name ? `.${part}` : part;
  }
  return name;
}

const RANGE = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
]);
const COUNT = new Set(['minItems', 'maxItems', 'minProperties', 'maxProperties']);

function describe(e: ErrorObject, name: string): InvalidParameter {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const extra = name ? `${name}.${String(p.additionalProperty)}` : String(p.additionalProperty);
      return { name: extra, reason: 'unknown', detail: `${extra} is not a known parameter` };
    }
    case 'required': {
      const missing = name ? `${name}.${String(p.missingProperty)}` : String(p.missingProperty);
      return { name: missing, reason: 'required', detail: `${missing} is required` };
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).map(String);
      return { name, reason: 'format', detail: `${name} must be one of ${allowed.join(', ')}`, allowed };
    }
    case 'uniqueItems':
      return { name, reason: 'duplicate', detail: `${name} must not repeat items` };
    case 'format':
      if (p.format === 'lp-address')
        return {
          name,
          reason: 'format',
          detail: `${name} is not an address: mixed case must carry a valid EIP-55 checksum`,
        };
      return { name, reason: 'format', detail: `${name} must be a ${String(p.format)}` };
    case BITS:
      return {
        name,
        reason: 'range',
        detail: `${name} must be below 2^${String((e.parentSchema as Record<string, unknown>)[BITS])}`,
      };
    default: {
      const reason = RANGE.has(e.keyword) || COUNT.has(e.keyword) ? 'range' : 'format';
      const what = e.keyword === 'pattern' ? `must match ${String(p.pattern)}` : (e.message ?? 'is invalid');
      const allowed = (e.parentSchema as Record<string, unknown> | undefined)?.[ALLOWED] as
        string[] | undefined;
      return { name, reason, detail: `${name || 'value'} ${what}`, ...(allowed ? { allowed } : {}) };
    }
  }
}

/** Maps ajv's errors for one part of the request to the single problem the spec asks for. */
export function validationProblem(errors: ErrorObject[], part: string | undefined): ApiError {
  if (part === 'body' && errors.some((e) => e.instancePath === '' && e.keyword === 'type')) {
    return new ApiError('invalid_request', 'The request body must be a JSON object');
  }
  const seen = new Set<string>();
  const unknown: InvalidParameter[] = [];
  const invalid: InvalidParameter[] = [];
  let special: ErrorCode | undefined;
  let specialDetail = '';
  for (const e of errors) {
    const name = paramName(e.instancePath, '');
    const item = describe(e, name);
    if (seen.has(item.name)) continue;
    seen.add(item.name);
    const code = (e.parentSchema as Record<string, unknown> | undefined)?.[INVALID_CODE] as
      ErrorCode | undefined;
    if ((e.keyword === 'enum' || e.keyword === BITS) && code) {
      special ??= code;
      specialDetail ||=
        e.keyword === BITS
          ? item.detail
          : `${item.name} ${JSON.stringify(e.data)} is not supported; use one of ${item.allowed?.join(', ')}`;
    } else if (item.reason === 'unknown') unknown.push(item);
    else invalid.push(item);
  }
  if (unknown.length > 0) {
    return new ApiError('unknown_parameter', `Unknown parameters: ${listed(unknown.map((i) => i.name))}`, {
      invalid_parameters: unknown.slice(0, MAX_LISTED),
    });
  }
  if (invalid.length > 0) return invalidParameters(invalid);
  if (special) return new ApiError(special, specialDetail);
  return new ApiError('invalid_request', 'The request is invalid');
}

/** The `invalid_parameter` problem of `items`: their details joined, at most MAX_LISTED of them listed. */
function invalidParameters(items: InvalidParameter[]): ApiError {
  return new ApiError(
    'invalid_parameter',
    listed(
      items.map((i) => i.detail),
      '; ',
    ),
    { invalid_parameters: items.slice(0, MAX_LISTED) },
  );
}

/** At most MAX_LISTED items, joined, with how many more there were. */
function listed(items: string[], sep = ', '): string {
  const more = items.length - MAX_LISTED;
  return items.slice(0, MAX_LISTED).join(sep) + (more > 0 ? `${sep}and ${more} more` : '');
}

// Control characters (C0 but tab, LF and CR; DEL; C1), bidirectional overrides and isolates, and lone
// surrogates (JSON can carry them as escapes; they are not text). Line breaks only in descriptions.
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LINE_BREAK = /[\t\n\r]/;
const MULTILINE = new Set(['description']);

/**
 * Checks a request's body and query before schema validation: the body's depth and size (so a hostile
 * body costs little), then every string for control characters and bidi overrides.
 */
export function checkInput(body: unknown, query: unknown): void {
  rejectDuplicateQuery(query);
  const state: WalkState = { members: 0, bad: [] };
  walkInput(state, body, '', '', 0);
  walkInput(state, query, '', '', 0);
  const bad = state.bad;
  if (bad.length > 0) throw invalidParameters(bad);
}

interface WalkState {
  members: number;
  bad: InvalidParameter[];
}

/** checkInput's walk over one value (a module function: no closure per request). */
function walkInput(state: WalkState, v: unknown, name: string, key: string, depth: number): void {
  if (typeof v === 'string') {
    if (UNSAFE.test(v) || (!MULTILINE.has(key) && LINE_BREAK.test(v)))
      state.bad.push({
        name,
        reason: 'format',
        detail: `${name} must not contain control characters, ${MULTILINE.has(key) ? '' : 'line breaks, '}bidirectional overrides or lone surrogates`,
      });
    return;
  }
  if (!v || typeof v !== 'object') return;
  if (depth > MAX_BODY_DEPTH)
    throw new ApiError('invalid_request', `The JSON body nests deeper than ${MAX_BODY_DEPTH} levels`);
  const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
  state.members += entries.length;
  if (state.members > MAX_BODY_MEMBERS)
    throw new ApiError('invalid_request', `The JSON body has more than ${MAX_BODY_MEMBERS} members`);
  for (const [k, x] of entries) {
    const child = Array.isArray(v) ? `${name}[${k}]` : name ? `${name}.${k}` : k;
    walkInput(state, x, child, Array.isArray(v) ? key : k, depth + 1);
  }
}

/** Throws duplicate_parameter when a query parameter was sent more than once. */
export function rejectDuplicateQuery(query: unknown): void {
  if (!query || typeof query !== 'object') return;
  let any = false;
  for (const k in query) if (Array.isArray((query as Record<string, unknown>)[k])) any = true;
  if (!any) return;
  const dup = Object.entries(query).filter(([, v]) => Array.isArray(v));
  throw new ApiError(
    'duplicate_parameter',
    `Query parameters sent more than once: ${listed(dup.map(([k]) => k))}`,
    {
      invalid_parameters: dup.slice(0, MAX_LISTED).map(([name]) => ({
        name,
        reason: 'duplicate',
        detail: `${name} was sent more than once`,
      })),
    },
  );
}

/** `limit` and `cursor` of the paginated reads (the key's plan caps `limit` further). */
export const PageLimit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 }));
export const PageCursor = Type.Optional(Type.String({ minLength: 1, maxLength: 4096 }));
