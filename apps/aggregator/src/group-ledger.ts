import { aggregatorEndedKey, aggregatorRunKeys } from "@volley/protocol";
import type { Redis } from "ioredis";

/** Claims outlive any redelivery: BullMQ gives a crashed consumer's jobs back within seconds. */
const CLAIM_TTL_S = 2 * 24 * 3600;

// Claims every member for a new group (partition.n), storing its combined batch with it, when no
// member is held yet; else claims nothing and says which group holds each held member, with that
// group's combined batch and whether it was sent.
const CLAIM = `
if redis.call('EXISTS', KEYS[6]) == 1 then return cjson.encode({ ended = true }) end
local held, groups = {}, {}
for i = 4, #ARGV do
  local g = redis.call('HGET', KEYS[1], ARGV[i])
  if g then
    if not groups[g] then
      groups[g] = { payload = redis.call('HGET', KEYS[5], g) or '', sent = redis.call('SISMEMBER', KEYS[3], g) }
    end
    table.insert(held, ARGV[i])
    table.insert(held, g)
  end
end
if #held > 0 then return cjson.encode({ group = false, held = held, groups = groups }) end
local gid = ARGV[1] .. '.' .. redis.call('INCR', KEYS[4])
local members = {}
for i = 4, #ARGV do
  redis.call('HSET', KEYS[1], ARGV[i], gid)
  table.insert(members, ARGV[i])
end
redis.call('HSET', KEYS[2], gid, cjson.encode(members))
redis.call('HSET', KEYS[5], gid, ARGV[3])
for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
return cjson.encode({ group = gid, held = {}, groups = {} })`;

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
redis.call('HDEL', KEYS[4], gid)
redis.call('SREM', KEYS[3], gid)
return 1`;

/** A group that already holds some of the members a claim asked for (an earlier attempt's). */
export interface HeldGroup {
  group: string;
  /** Its combined batch (without its `group`), as claimed. */
  payload: string;
  /** Its combined batch went to the master: its members only need acknowledging. */
  sent: boolean;
}

export interface ClaimResult {
  /** The run has its final status: nothing was claimed, nothing of it may be sent. */
  ended: boolean;
  /** The new group of the members, or null when some member was held (then nothing was claimed). */
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
 * for good, claimed atomically with the group's combined batch before it is sent. Whoever gets a
 * claimed batch back (a replacement, or another aggregator on the partition) sends that stored
 * group again, never a new one: the master sees each worker batch in exactly one group.
 */
export class GroupLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Claims `members` as one new group whose combined batch is `payload`, unless one is held. */
  async claim(
    runId: string,
    partition: string,
    members: readonly string[],
    payload: string,
  ): Promise<ClaimResult> {
    const keys = aggregatorRunKeys(this.prefix, runId);
    const raw = (await this.redis.eval(
      CLAIM,
      6,
      keys.claims,
      keys.groups,
      keys.sent,
      keys.next,
      keys.payloads,
      aggregatorEndedKey(this.prefix, runId),
      partition,
      CLAIM_TTL_S,
      payload,
      ...members,
    )) as string;
    const answer = JSON.parse(raw) as {
      ended?: boolean;
      group: string | false;
      held: string[] | Record<string, never>;
      groups: Record<string, { payload: string; sent: number }>;
    };
    const held = new Map<string, HeldGroup>();
    if (answer.ended) return { ended: true, group: null, held };
    const pairs = Array.isArray(answer.held) ? answer.held : [];
    for (let i = 0; i < pairs.length; i += 2) {
      const group = pairs[i + 1];
      const record = answer.groups[group];
      held.set(pairs[i], { group, payload: record?.payload ?? "", sent: record?.sent === 1 });
    }
    return { ended: false, group: answer.group || null, held };
  }

  /** The group's combined batch is in the master's queue. */
  async sent(runId: string, group: string): Promise<void> {
    const keys = aggregatorRunKeys(this.prefix, runId);
    await this.redis.multi().sadd(keys.sent, group).expire(keys.sent, CLAIM_TTL_S).exec();
  }

  /** These members' jobs are acknowledged: they cannot come back, their claims can go. */
  async release(runId: string, group: string, members: readonly string[]): Promise<void> {
    const keys = aggregatorRunKeys(this.prefix, runId);
    await this.redis.eval(RELEASE, 4, keys.claims, keys.groups, keys.sent, keys.payloads, group, ...members);
  }
}
