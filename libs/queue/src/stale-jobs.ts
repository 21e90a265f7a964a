import type { Queue } from 'bullmq';
import type { RedisClient } from './connection';

/**
 * Of the job ids in ARGV[3..], those an add would wrongly leave be: kept as completed or failed, or (ARGV[1] = '1')
 * lost in part, their hash (ARGV[2] .. id) still there but their id in none of the queue's lists and sets. KEYS:
 * completed, failed, then the sorted sets prioritized, delayed, waiting-children, then the lists wait, paused, active.
 * The lists are read once, and only when some id needs them.
 */
const STALE_JOB_IDS = `
local stale, listed = {}, nil
for i = 3, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], id) or redis.call('ZSCORE', KEYS[2], id) then
    stale[#stale + 1] = id
  elseif ARGV[1] == '1' and redis.call('EXISTS', ARGV[2] .. id) == 1
    and not (redis.call('ZSCORE', KEYS[3], id) or redis.call('ZSCORE', KEYS[4], id) or redis.call('ZSCORE', KEYS[5], id)) then
    if not listed then
      listed = {}
      for k = 6, 8 do for _, member in ipairs(redis.call('LRANGE', KEYS[k], 0, -1)) do listed[member] = true end end
    end
    if not listed[id] then stale[#stale + 1] = id end
  end
end
return stale`;

type StaleJobCommands = { sqlsweepStaleJobIds(...args: string[]): Promise<string[]> };

/** Registers the script on `connection` (sent by SHA after its first run). */
export function withStaleJobIds<C extends RedisClient>(connection: C): C & StaleJobCommands {
  connection.defineCommand('sqlsweepStaleJobIds', { numberOfKeys: 8, lua: STALE_JOB_IDS });
  return connection as C & StaleJobCommands;
}

/**
 * Of these job ids, those to remove before adding them again, in one round trip: a job kept as completed or failed
 * (its work is asked for again) and, with `lost`, a job Redis lost in part (evicted keys, a key-by-key flush): its
 * hash kept but its id in no list or set, which BullMQ takes for a duplicate and no worker will ever see. `lost`
 * reads the queue's wait list once when an id is neither new nor in a sorted set: meant for re-planning, not for
 * every add.
 */
export async function staleJobIds(connection: StaleJobCommands, queue: Queue, ids: string[], opts: { lost: boolean }): Promise<Set<string>> {
  const k = queue.keys;
  const keys = [k.completed, k.failed, k.prioritized, k.delayed, k['waiting-children'], k.wait, k.paused, k.active];
  return new Set(await connection.sqlsweepStaleJobIds(...keys, opts.lost ? '1' : '0', queue.toKey(''), ...ids));
}
