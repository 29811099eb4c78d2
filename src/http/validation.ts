// Request validation: schema helpers with the spec's patterns, the two ajv instances fastify compiles
// route schemas with, and the mapping from ajv errors to the spec's problem codes.
import { type TSchema, Type } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type Options } from 'ajv';
import { CHAIN_IDS, type ChainId } from '../launchpad/chains.ts';
import { ApiError, type ErrorCode, type InvalidParameter } from '../errors.ts';

/** Annotation keyword: the problem code for a value outside the schema's enum (e.g. unsupported_chain). */
const INVALID_CODE = 'x-lp-invalid-code';
/** Annotation keyword: the values a patterned string is built from, reported as `allowed`. */
const ALLOWED = 'x-lp-allowed';

export const UINT_PATTERN = '^(0|[1-9][0-9]*)$';
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';

export const Address = (options: object = {}) =>
  Type.String({ pattern: ADDRESS_PATTERN, description: 'EVM address, any case', ...options });
export const Uint = (options: object = {}) =>
  Type.String({
    pattern: UINT_PATTERN,
    maxLength: 78,
    description: 'Unsigned integer as a base-10 string',
    ...options,
  });
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

export function compileValidator({ schema, httpPart }: { schema: TSchema; httpPart?: string }) {
  return (httpPart === 'body' ? jsonAjv : textAjv).compile(schema);
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
    if (e.keyword === 'enum' && code) {
      special ??= code;
      specialDetail ||= `${item.name} ${JSON.stringify(e.data)} is not supported; use one of ${item.allowed?.join(', ')}`;
    } else if (item.reason === 'unknown') unknown.push(item);
    else invalid.push(item);
  }
  if (unknown.length > 0) {
    return new ApiError('unknown_parameter', `Unknown parameters: ${unknown.map((i) => i.name).join(', ')}`, {
      invalid_parameters: unknown,
    });
  }
  if (invalid.length > 0) {
    return new ApiError('invalid_parameter', invalid.map((i) => i.detail).join('; '), {
      invalid_parameters: invalid,
    });
  }
  if (special) return new ApiError(special, specialDetail);
  return new ApiError('invalid_request', 'The request is invalid');
}

/** Throws duplicate_parameter when a query parameter was sent more than once. */
export function rejectDuplicateQuery(query: unknown): void {
  if (!query || typeof query !== 'object') return;
  const dup = Object.entries(query).filter(([, v]) => Array.isArray(v));
  if (dup.length === 0) return;
  throw new ApiError(
    'duplicate_parameter',
    `Query parameters sent more than once: ${dup.map(([k]) => k).join(', ')}`,
    {
      invalid_parameters: dup.map(([name]) => ({
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
