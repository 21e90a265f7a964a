import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { SweepConfigError } from '@sqlsweep/contracts';
import { ApiRequestError } from './request-error';

/** Translates the system's errors to HTTP in one place: bad requests are 400 with the field (or path) and the reason. */
@Catch()
export class ErrorsFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<{ status(code: number): { json(body: unknown): void } }>();
    if (error instanceof SweepConfigError) {
      res.status(400).json({ error: 'invalid_config', source: error.source, path: error.path, reason: error.reason });
    } else if (error instanceof ApiRequestError) {
      res.status(400).json({ error: 'invalid_request', field: error.field, reason: error.reason });
    } else if (error instanceof HttpException) {
      res.status(error.getStatus()).json({ error: error.message });
    } else {
      res.status(500).json({ error: 'internal', message: (error as Error).message });
    }
  }
}
