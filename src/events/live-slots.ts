import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Plan } from '../domain/plans.js';

export type SlotRefusal = { ok: false; reason: 'tenant' | 'process'; limit: number };
export type SlotDecision = { ok: true; slotId: string } | SlotRefusal;

export interface LiveSlotOptions {
  /** Open sockets per tenant, per plan. */
  perPlan: Record<Plan, number>;
  /** Open sockets in this process, all tenants together. */
  perProcess: number;
  /** How long a slot outlives its last refresh in Redis: what a crashed process leaks, at most. */
  ttlSeconds: number;
  redis?: Redis;
  logger: Logger;
  keyPrefix?: string;
}

/*
 * One sorted set per tenant: member = slot id, score = expiry (Redis server clock, ms). Expired
 * members are dropped before counting, so slots of a process that died free themselves after the TTL.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1`;

const REFRESH = `
local t = redis.call('TIME')
local expiry = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', expiry, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1`;

const COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])`;

/**
 * Slots for live sockets: at most `perPlan[plan]` per tenant (across every api process when Redis is
 * configured, else in this process) and at most `perProcess` in this process. A slot is taken before
 * the upgrade and given back when the connection closes; with Redis, the holder refreshes its slots
 * on every ping, so a crashed process's slots expire after `ttlSeconds`.
 */
export class LiveSocketSlots {
  private readonly processTag = randomBytes(6).toString('hex');
  private sequence = 0;
  /** Slots held by this process: slot id -> tenant id, and tenant id -> its slot ids. */
  private readonly held = new Map<string, string>();
  private readonly byTenant = new Map<string, Set<string>>();
  private readonly prefix: string;

  constructor(private readonly options: LiveSlotOptions) {
    this.prefix = options.keyPrefix ?? 'vigil:ws:';
  }

  get heldHere(): number {
    return this.held.size;
  }

  async acquire(tenantId: string, plan: Plan): Promise<SlotDecision> {
    const { perProcess, perPlan, redis } = this.options;
    if (this.held.size >= perProcess) return { ok: false, reason: 'process', limit: perProcess };
    const limit = perPlan[plan];
    const slotId = `${this.processTag}:${(this.sequence += 1)}`;
    let granted = this.localCount(tenantId) < limit;
    // Held locally before any await, so concurrent upgrades in this process see it.
    this.hold(slotId, tenantId);
    if (granted && redis) {
      try {
        granted = (await redis.eval(ACQUIRE, 1, this.key(tenantId), limit, this.ttlMs(), slotId)) === 1;
      } catch (error) {
        // Redis unreachable: the cap still holds in this process.
        this.options.logger.warn({ err: error instanceof Error ? error.message : error }, 'live socket slot check fell back to this process');
      }
    }
    if (!granted) {
      this.drop(slotId);
      return { ok: false, reason: 'tenant', limit };
    }
    return { ok: true, slotId };
  }

  async release(slotId: string): Promise<void> {
    const tenantId = this.held.get(slotId);
    if (tenantId === undefined) return;
    this.drop(slotId);
    await this.options.redis?.zrem(this.key(tenantId), slotId).catch(() => undefined);
  }

  /** Pushes the expiry of every slot held here forward (called on each ping round). */
  async refresh(): Promise<void> {
    const { redis } = this.options;
    if (!redis || this.held.size === 0) return;
    const pipeline = redis.pipeline();
    for (const [tenantId, slots] of this.byTenant) pipeline.eval(REFRESH, 1, this.key(tenantId), this.ttlMs(), ...slots);
    await pipeline
      .exec()
      .catch((error) => this.options.logger.warn({ err: error instanceof Error ? error.message : error }, 'live socket slot refresh failed'));
  }

  /** Open sockets of a tenant: across processes with Redis, else in this process. */
  async count(tenantId: string): Promise<number> {
    const { redis } = this.options;
    if (!redis) return this.localCount(tenantId);
    return Number(await redis.eval(COUNT, 1, this.key(tenantId)));
  }

  /** Gives back every slot held here (shutdown). */
  async close(): Promise<void> {
    const { redis } = this.options;
    const groups = [...this.byTenant].map(([tenantId, slots]) => [tenantId, [...slots]] as const);
    this.held.clear();
    this.byTenant.clear();
    if (!redis || groups.length === 0) return;
    const pipeline = redis.pipeline();
    for (const [tenantId, slots] of groups) pipeline.zrem(this.key(tenantId), ...slots);
    await pipeline.exec().catch(() => undefined);
  }

  private localCount(tenantId: string): number {
    return this.byTenant.get(tenantId)?.size ?? 0;
  }

  private hold(slotId: string, tenantId: string): void {
    this.held.set(slotId, tenantId);
    const slots = this.byTenant.get(tenantId) ?? new Set<string>();
    slots.add(slotId);
    this.byTenant.set(tenantId, slots);
  }

  private drop(slotId: string): void {
    const tenantId = this.held.get(slotId);
    if (tenantId === undefined) return;
    this.held.delete(slotId);
    const slots = this.byTenant.get(tenantId);
    slots?.delete(slotId);
    if (slots?.size === 0) this.byTenant.delete(tenantId);
  }

  private key(tenantId: string): string {
    return this.prefix + tenantId;
  }

  private ttlMs(): number {
    return this.options.ttlSeconds * 1000;
  }
}
