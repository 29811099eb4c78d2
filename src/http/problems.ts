// Problem responses (RFC 9457, application/problem+json) built from the one error table (src/errors.ts).
import { type ApiError, type ErrorCode, ERRORS } from '../errors.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function problemType(docsUrl: string, code: ErrorCode): string {
  return `${docsUrl}/launchpad/api/errors-and-limits#${code.replaceAll('_', '-')}`;
}

export function problemBody(err: ApiError, requestId: string, docsUrl: string): Record<string, unknown> {
  const { status: _status, headers: _headers, ...members } = err.extras;
  return {
    type: problemType(docsUrl, err.code),
    title: ERRORS[err.code].title,
    status: err.status,
    code: err.code,
    detail: err.message,
    action: ERRORS[err.code].action,
    instance: `urn:request:${requestId}`,
    request_id: requestId,
    ...members,
  };
}
