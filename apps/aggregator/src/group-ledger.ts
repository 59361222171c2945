import { aggregatorRunKeys } from "@volley/protocol";
import type { Redis } from "ioredis";

/** Claims outlive any redelivery: BullMQ gives a crashed consumer's jobs back within seconds. */
const CLAIM_TTL_S = 2 * 24 * 3600;

// Claims the unclaimed members for a new group (partition.n) in one step, and says which group
// holds each of the others, with that group's members and whether it was sent.
const CLAIM = `
local free, held, groups = {}, {}, {}
for i = 3, #ARGV do
  local m = ARGV[i]
  local g = redis.call('HGET', KEYS[1], m)
  if g then
    if not groups[g] then
      groups[g] = { members = cjson.decode(redis.call('HGET', KEYS[2], g) or '[]'),
                    sent = redis.call('SISMEMBER', KEYS[3], g) }
    end
    table.insert(held, m)
    table.insert(held, g)
  else
    table.insert(free, m)
  end
end
local gid = false
if #free > 0 then
  gid = ARGV[1] .. '.' .. redis.call('INCR', KEYS[4])
  for _, m in ipairs(free) do redis.call('HSET', KEYS[1], m, gid) end
  redis.call('HSET', KEYS[2], gid, cjson.encode(free))
end
for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, ARGV[2]) end
return cjson.encode({ group = gid, held = held, groups = groups })`;

// Drops the claims of acknowledged members; the group's record goes with its last claim.
const RELEASE = `
local gid = ARGV[1]
for i = 2, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == gid then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
local members = cjson.decode(redis.call('HGET', KEYS[2], gid) or '[]')
for _, m in ipairs(members) do
  if redis.call('HGET', KEYS[1], m) == gid then return 0 end
end
redis.call('HDEL', KEYS[2], gid)
redis.call('SREM', KEYS[3], gid)
return 1`;

/** A group that already holds some of the members a claim asked for (an earlier, crashed attempt). */
export interface HeldGroup {
  group: string;
  /** Every member of the group. */
  members: string[];
  /** Its combined batch went to the master: its members only need acknowledging. */
  sent: boolean;
}

export interface ClaimResult {
  /** The new group of the members no group held, or null when every member was held. */
  group: string | null;
  /** Member → the group that holds it. */
  held: Map<string, HeldGroup>;
}

/** A worker batch as a claim names it: unambiguous whatever characters the worker id holds. */
export function memberOf(workerId: string, seq: number): string {
  return JSON.stringify([workerId, seq]);
}

/**
 * The Redis record that makes aggregation exactly-once: every worker batch belongs to one group
 * for good (claimed atomically before the group is sent), so a replacement that gets a crashed
 * aggregator's batches back rebuilds the same groups instead of making overlapping ones.
 */
export class GroupLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async claim(runId: string, partition: string, members: readonly string[]): Promise<ClaimResult> {
    const keys = aggregatorRunKeys(this.prefix, runId);
    const raw = (await this.redis.eval(
      CLAIM,
      4,
      keys.claims,
      keys.groups,
      keys.sent,
      keys.next,
      partition,
      CLAIM_TTL_S,
      ...members,
    )) as string;
    const answer = JSON.parse(raw) as {
      group: string | false;
      held: string[] | Record<string, never>;
      groups: Record<string, { members: string[] | Record<string, never>; sent: number }>;
    };
    const held = new Map<string, HeldGroup>();
    const pairs = Array.isArray(answer.held) ? answer.held : [];
    for (let i = 0; i < pairs.length; i += 2) {
      const group = pairs[i + 1];
      const record = answer.groups[group];
      held.set(pairs[i], {
        group,
        members: Array.isArray(record?.members) ? record.members : [],
        sent: record?.sent === 1,
      });
    }
    return { group: answer.group || null, held };
  }

  /** The group's combined batch is in the master's queue. */
  async sent(runId: string, group: string): Promise<void> {
    const keys = aggregatorRunKeys(this.prefix, runId);
    await this.redis.multi().sadd(keys.sent, group).expire(keys.sent, CLAIM_TTL_S).exec();
  }

  /** These members' jobs are acknowledged: they cannot come back, their claims can go. */
  async release(runId: string, group: string, members: readonly string[]): Promise<void> {
    const keys = aggregatorRunKeys(this.prefix, runId);
    await this.redis.eval(RELEASE, 3, keys.claims, keys.groups, keys.sent, group, ...members);
  }
}
