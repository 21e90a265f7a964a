import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { ORCHESTRATOR_ENV } from './tokens';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The one access rule: state changes need `Authorization: Bearer <SQLSWEEP_API_TOKEN>`; reads too unless
 * SQLSWEEP_OPEN_READS. Returns why a request is refused, or null when it may pass.
 */
export function refusal(env: Pick<AppEnv<'orchestrator'>, 'SQLSWEEP_API_TOKEN' | 'SQLSWEEP_OPEN_READS'>, method: string, authorization: string | undefined): string | null {
  if (safeMethods.has(method) && env.SQLSWEEP_OPEN_READS) return null;
  const expected = env.SQLSWEEP_API_TOKEN;
  if (!expected) return 'this orchestrator has no SQLSWEEP_API_TOKEN set: state changes are disabled';
  const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b) ? null : 'missing or wrong bearer token';
}

@Injectable()
export class BearerGuard implements CanActivate {
  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: AppEnv<'orchestrator'>) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ method: string; headers: { authorization?: string } }>();
    const why = refusal(this.env, req.method, req.headers.authorization);
    if (why) throw new UnauthorizedException(why);
    return true;
  }
}
