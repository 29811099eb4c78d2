// Checks real answers against the response bodies the OpenAPI document publishes (src/http/records.ts).
import { Ajv, type ValidateFunction } from 'ajv';
import { RESPONSE_BODIES } from '../../src/http/records.ts';
import { type Operation, ROUTES } from '../../src/http/catalog.ts';

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('date-time', (v: string) => !Number.isNaN(Date.parse(v)) && /T.*Z$/.test(v));
const compiled = new Map<Operation, ValidateFunction>();

/** The operation a path (with or without /v1 and a query) belongs to. */
export function operationOf(path: string, method = 'GET'): Operation | undefined {
  const bare = path.replace(/^\/v1/, '').split('?')[0] as string;
  // Literal segments beat parameters (/tokens/search is not /tokens/:chain_id).
  const candidates = (Object.entries(ROUTES) as [Operation, { method: string; url: string }][])
    .filter(([, r]) => r.method === method)
    .filter(([, r]) => new RegExp(`^${r.url.replace(/:[a-z_]+/g, '[^/]+')}$`).test(bare))
    .sort(([, a], [, b]) => (a.url.match(/:/g) ?? []).length - (b.url.match(/:/g) ?? []).length);
  return candidates[0]?.[0];
}

/** Throws when a 200 answer of a documented operation does not match its published schema. */
export function expectDocumented(path: string, json: unknown, method = 'GET'): void {
  const operation = operationOf(path, method);
  const schema = operation && RESPONSE_BODIES[operation];
  if (!operation || !schema) return;
  let validate = compiled.get(operation);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(operation, validate);
  }
  if (!validate(json))
    throw new Error(
      `${operation}: the answer differs from its documented schema: ${ajv.errorsText(validate.errors)}`,
    );
}
