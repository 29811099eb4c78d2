// Every answer held to the gateway's own OpenAPI document: a 2xx JSON body against its schema, an error
// against the problem schema of its status; a status the document does not list for the route is
// invalid too.
import { Ajv, type ValidateFunction } from 'ajv';
import { type Operation, ROUTES } from '../../src/http/catalog.ts';
import type { Validate } from './record.ts';

/** The validator of answers for the document at `origin`. */
export async function openapiValidator(origin: string): Promise<Validate> {
  const doc = (await (await fetch(`${origin}/v1/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
    >;
  };
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
  ajv.addSchema(doc, 'openapi');
  const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
  const compiled = new Map<string, ValidateFunction | null>();
  const schemaFor = (
    op: Operation,
    status: number,
    type: string,
  ): ValidateFunction | null | 'undocumented' => {
    const route = ROUTES[op];
    const path = `/v1${route.url}`.replace(/:(\w+)/g, '{$1}');
    const responses = doc.paths[path]?.[route.method.toLowerCase()]?.responses;
    const response = responses?.[String(status)] ?? responses?.default;
    if (!response) return 'undocumented';
    const media = type.startsWith('application/problem+json')
      ? 'application/problem+json'
      : 'application/json';
    if (!response.content?.[media]) return null;
    const id = `${path} ${route.method} ${status} ${media}`;
    if (!compiled.has(id))
      compiled.set(
        id,
        ajv.compile({
          $ref: `openapi#/paths/${pointer(path)}/${route.method.toLowerCase()}/responses/${status in (responses ?? {}) ? status : 'default'}/content/${pointer(media)}/schema`,
        }),
      );
    return compiled.get(id) ?? null;
  };
  return (op, status, type, text) => {
    if (op === 'events') return undefined; // a stream, checked by its consumer
    const schema = schemaFor(op, status, type);
    if (schema === 'undocumented') return `status ${status} is not documented for ${op}`;
    if (status >= 400 && !type.startsWith('application/problem+json'))
      return `error without problem+json (${type})`;
    if (!schema) return undefined;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return 'not JSON';
    }
    return schema(body) ? undefined : ajv.errorsText(schema.errors);
  };
}
