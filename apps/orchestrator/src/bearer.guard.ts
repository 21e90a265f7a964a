import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, SetMetadata, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AppEnv } from '@sqlsweep/config';
import { ORCHESTRATOR_ENV } from './tokens';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const OPEN_READ = 'sqlsweep:open-read';

/**
 * Marks a read anyone may make without the token whatever SQLSWEEP_OPEN_READS says, because it shows no stored
 * content: the health check, the metrics, the API description. Every other read is closed unless the operator opens
 * reads, so a new route is closed until someone decides otherwise.
 */
export const OpenRead = (): MethodDecorator & ClassDecorator => SetMetadata(OPEN_READ, true);

type AccessEnv = Pick<AppEnv<'orchestrator'>, 'SQLSWEEP_API_TOKEN' | 'SQLSWEEP_OPEN_READS'> & Partial<Pick<AppEnv<'orchestrator'>, 'SQLSWEEP_READ_TOKEN'>>;

const sameToken = (presented: string | undefined, expected: string | undefined): boolean => {
  if (!expected) return false;
  const a = Buffer.from(presented ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

export const READ_ONLY_REFUSAL = 'this token is read-only (SQLSWEEP_READ_TOKEN): state changes need SQLSWEEP_API_TOKEN';

/**
 * The one access rule: state changes need `Authorization: Bearer <SQLSWEEP_API_TOKEN>`; reads too, unless the route is
 * an open read or SQLSWEEP_OPEN_READS, and SQLSWEEP_READ_TOKEN (if set) reads but never changes state. `presented`
 * is the token the request carries. Returns why a request is refused, or null when it may pass.
 */
export function refusal(env: AccessEnv, method: string, presented: string | undefined, openRead = false): string | null {
  const read = safeMethods.has(method);
  if (read && (openRead || env.SQLSWEEP_OPEN_READS)) return null;
  if (read && sameToken(presented, env.SQLSWEEP_READ_TOKEN)) return null;
  const expected = env.SQLSWEEP_API_TOKEN;
  if (!expected) {
    return read
      ? 'this orchestrator has no SQLSWEEP_API_TOKEN set: set one to read with it, or SQLSWEEP_OPEN_READS=1 to open reads'
      : 'this orchestrator has no SQLSWEEP_API_TOKEN set: state changes are disabled';
  }
  if (sameToken(presented, expected)) return null;
  return !read && sameToken(presented, env.SQLSWEEP_READ_TOKEN) ? READ_ONLY_REFUSAL : 'missing or wrong bearer token';
}

/** What a token may do, for the dashboard to enable or disable its actions with the reason. */
export function access(env: AccessEnv, presented: string | undefined): { read: boolean; write: boolean; reason: string | null } {
  const readWhy = refusal(env, 'GET', presented);
  const writeWhy = refusal(env, 'POST', presented);
  return { read: readWhy === null, write: writeWhy === null, reason: writeWhy ?? readWhy };
}

/** The token of `Authorization: Bearer <token>`. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
}

@Injectable()
export class BearerGuard implements CanActivate {
  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: AppEnv<'orchestrator'>, private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ method: string; headers: { authorization?: string } }>();
    const openRead = this.reflector.getAllAndOverride<boolean | undefined>(OPEN_READ, [context.getHandler(), context.getClass()]) === true;
    const why = refusal(this.env, req.method, bearerToken(req.headers.authorization), openRead);
    if (why) throw new UnauthorizedException(why);
    return true;
  }
}
