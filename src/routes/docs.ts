// Documents: the OpenAPI document and the two docs pages that problem `type` and deprecation `Link`
// point at when DOCS_URL is left at its default (this gateway).
import type { FastifyInstance } from 'fastify';
import { MIGRATION_PATH, REPLACEMENTS } from '../http/deprecation.ts';
import { openapiDocument } from '../http/openapi.ts';
import { ERROR_CODES, ERRORS } from '../http/problems.ts';
import { routeBase } from './catalog.ts';

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
  const html = (body: string) => async (_: unknown, reply: import('fastify').FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'public, max-age=3600').send(body);
  app.get('/launchpad/api/errors-and-limits', { schema: { hide: true } }, html(errorsPage));
  app.get(MIGRATION_PATH, { schema: { hide: true } }, html(migrationPage));
}
