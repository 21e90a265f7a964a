import { randomUUID } from 'node:crypto';
import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { SweepConfigError } from '@sqlsweep/contracts';
import { isUnreachableError } from '@sqlsweep/db';
import { ReportQueryError } from '@sqlsweep/orchestration';
import { ApiRequestError } from './request-error';

/** An error raised before a handler by body-parser (http-errors): a status of its own and a `type`. */
interface BodyParserError { status: number; type: string; limit?: number }

function isBodyParserError(error: unknown): error is BodyParserError {
  const e = error as Partial<BodyParserError> | null;
  return typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && typeof e.type === 'string';
}

/**
 * Translates the system's errors to HTTP in one place: bad requests are 400 with the field (or path) and the reason,
 * a body over the limit 413. Anything else is the server's fault: its message (a database's included) is logged
 * with a reference and never sent, since it can name tables, values or hosts.
 */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  private readonly log = new Logger('api');

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<{ status(code: number): { json(body: unknown): void } }>();
    if (error instanceof SweepConfigError) {
      res.status(400).json({ error: 'invalid_config', source: error.source, path: error.path, reason: error.reason });
    } else if (error instanceof ApiRequestError || error instanceof ReportQueryError) {
      res.status(400).json({ error: 'invalid_request', field: error.field, reason: error.reason });
    } else if (error instanceof HttpException) {
      res.status(error.getStatus()).json({ error: error.message });
    } else if (isBodyParserError(error)) {
      res.status(error.status).json(bodyParserAnswer(error));
    } else {
      const ref = randomUUID();
      this.log.error(`ref ${ref}: ${(error as Error)?.stack ?? String(error)}`);
      if (isUnreachableError(error)) res.status(503).json({ error: 'unavailable', reason: 'Postgres or Redis cannot be reached right now: retry shortly', ref });
      else res.status(500).json({ error: 'internal', reason: 'the server failed; the orchestrator log has the details under this ref', ref });
    }
  }
}

function bodyParserAnswer(error: BodyParserError): Record<string, unknown> {
  if (error.type === 'entity.too.large') {
    return { error: 'payload_too_large', reason: `the request body is over the limit of ${error.limit ?? '?'} bytes` };
  }
  if (error.type === 'entity.parse.failed') return { error: 'invalid_request', field: 'body', reason: 'not valid JSON' };
  return { error: 'invalid_request', field: 'body', reason: error.type.replace(/\./g, ' ') };
}
