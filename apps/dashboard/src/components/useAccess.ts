import type { AccessDto } from '@sqlsweep/contracts';
import { useApi } from '../lib/api';

/** What this browser's token may do, with the API's reason when it may not change state. */
export function useAccess(): { write: boolean; reason: string | null; known: boolean } {
  const access = useApi<AccessDto>('/access');
  if (!access.data) return { write: false, reason: access.error ? `cannot tell what this token may do (${access.error.message})` : 'checking the token…', known: false };
  return { write: access.data.write, reason: access.data.write ? null : access.data.reason, known: true };
}
