import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { ORCHESTRATOR_ENV } from './tokens';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** State changes need `Authorization: Bearer <SQLSWEEP_API_TOKEN>`; reads too unless SQLSWEEP_OPEN_READS. */
@Injectable()
export class BearerGuard implements CanActivate {
  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: AppEnv<'orchestrator'>) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ method: string; headers: { authorization?: string } }>();
    if (safeMethods.has(req.method) && this.env.SQLSWEEP_OPEN_READS) return true;
    const expected = this.env.SQLSWEEP_API_TOKEN;
    if (!expected) throw new UnauthorizedException('this orchestrator has no SQLSWEEP_API_TOKEN set: state changes are disabled');
    const given = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    if (a.length !== b.length || !timingSafeEqual(a, b)) throw new UnauthorizedException('missing or wrong bearer token');
    return true;
  }
}
