import type { Queue } from 'bullmq';
import type { RedisClient } from './connection';

/**
 * Of the job ids in ARGV[3..], those an add would wrongly leave be: kept as completed or failed and, when ARGV[1] is
 * 'lost', those lost in part: their hash (ARGV[2] .. id) still there but their id in none of the queue's lists and
 * sets. KEYS: completed, failed, then the sorted sets prioritized, delayed, waiting-children, then the lists wait,
 * paused, active, read once and only when some id needs them.
 */
const JOB_IDS_TO_REPLACE = `
local replace, listed = {}, nil
for i = 3, #ARGV do
  local id = ARGV[i]
  if redis.call('ZSCORE', KEYS[1], id) or redis.call('ZSCORE', KEYS[2], id) then
    replace[#replace + 1] = id
  elseif ARGV[1] == 'lost' and redis.call('EXISTS', ARGV[2] .. id) == 1
    and not (redis.call('ZSCORE', KEYS[3], id) or redis.call('ZSCORE', KEYS[4], id) or redis.call('ZSCORE', KEYS[5], id)) then
    if not listed then
      listed = {}
      for k = 6, 8 do for _, member in ipairs(redis.call('LRANGE', KEYS[k], 0, -1)) do listed[member] = true end end
    end
    if not listed[id] then replace[#replace + 1] = id end
  end
end
return replace`;

export type ReplaceCheckCommands = { sqlsweepJobIdsToReplace(...args: string[]): Promise<string[]> };

/** Registers the script on `connection` (sent by SHA after its first run). */
export function withReplaceCheck<C extends RedisClient>(connection: C): C & ReplaceCheckCommands {
  connection.defineCommand('sqlsweepJobIdsToReplace', { numberOfKeys: 8, lua: JOB_IDS_TO_REPLACE });
  return connection as C & ReplaceCheckCommands;
}

/**
 * Of these job ids, those to remove and add again, in one round trip: `finished`, a job kept as completed or failed
 * (its work is asked for again); `lost`, also a job Redis lost in part (evicted keys, a key-by-key flush): its hash
 * kept but its id in no list or set, which BullMQ takes for a duplicate and no worker will ever see. `lost` reads the
 * queue's wait, paused and active lists, whole, when an id is queued: a moment of Redis's time per call on a long
 * queue, for re-planning, not for every add.
 */
export async function jobIdsToReplace(connection: ReplaceCheckCommands, queue: Queue, ids: string[], check: 'finished' | 'lost'): Promise<Set<string>> {
  const k = queue.keys;
  const keys = [k.completed, k.failed, k.prioritized, k.delayed, k['waiting-children'], k.wait, k.paused, k.active];
  return new Set(await connection.sqlsweepJobIdsToReplace(...keys, check, queue.toKey(''), ...ids));
}
