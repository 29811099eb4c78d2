// Documents: the OpenAPI document and the two docs pages that problem `type` and deprecation `Link`
// point at when DOCS_URL is left at its default (this gateway).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { MIGRATION_PATH, REPLACEMENTS } from '../http/deprecation.ts';
import { openapiDocument } from '../http/openapi.ts';
import { ERROR_CODES, ERRORS } from '../errors.ts';
import { routeBase } from '../http/catalog.ts';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function registerDocRoutes(app: FastifyInstance, planned: ReadonlySet<string>) {
  let doc: unknown;
  app.route({
    ...routeBase('openapi'),
    handler: async () => {
      doc ??= openapiDocument(app, planned);
      return doc;
    },
  });

  const errorsPage = page(
    'Errors and limits',
    `<table><tr><th>code</th><th>status</th><th>title</th><th>action</th></tr>${ERROR_CODES.map(
      (code) =>
        `<tr id="${code.replaceAll('_', '-')}"><td>${code}</td><td>${ERRORS[code].status}</td><td>${escapeHtml(ERRORS[code].title)}</td><td>${escapeHtml(ERRORS[code].action)}</td></tr>`,
    ).join('')}</table>`,
  );
  const migrationPage = page(
    'Migration to focused routes',
    `<table><tr><th>earlier form</th><th>focused route</th></tr>${REPLACEMENTS.map(
      (r) =>
        `<tr><td>${escapeHtml(r.legacy)}${r.retired ? ' (retired)' : ''}</td><td>${escapeHtml(r.focused)}</td></tr>`,
    ).join('')}</table>`,
  );
  const html = (body: string) => async (_: unknown, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=3600').send(body);
  app.get('/launchpad/api/errors-and-limits', { schema: { hide: true } }, html(errorsPage));
  app.get(MIGRATION_PATH, { schema: { hide: true } }, html(migrationPage));
  registerReferencePage(app);
}

// The API reference page: Swagger UI's own build (npm swagger-ui-dist), served by the gateway itself, so
// the page needs nothing from the internet at run time. It renders /v1/openapi.json.
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
} as const;

const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Launchpad API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
<style>body{margin:0} .lp-links{font-family:sans-serif;padding:8px 20px;background:#f6f6f6}</style>
</head>
<body>
<nav class="lp-links">
<a href="/v1/openapi.json">OpenAPI document</a> ·
<a href="/launchpad/api/errors-and-limits">Errors and limits</a> ·
<a href="${MIGRATION_PATH}">Migration to focused routes</a>
</nav>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

function registerReferencePage(app: FastifyInstance) {
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, async (_, reply) => reply.redirect('/docs', 302));
  app.get('/docs', hidden, async (_, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(REFERENCE_PAGE),
  );
  app.get('/docs/assets/init.js', hidden, async (_, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(INIT),
  );
  const files = new Map<string, Buffer>();
  for (const [name, type] of Object.entries(ASSETS)) {
    app.get(`/docs/assets/${name}`, hidden, async (_, reply) => {
      let body = files.get(name);
      if (!body) {
        body = readFileSync(join(SWAGGER_UI, name));
        files.set(name, body);
      }
      return reply.type(type).header('cache-control', 'public, max-age=86400').send(body);
    });
  }
}
