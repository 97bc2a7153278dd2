import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Topics carried between processes. */
export interface BusMessages {
  /** A usage_update for one tenant: every api instance forwards it to that tenant's sockets. */
  usage: { tenant_id: string; payload: Record<string, unknown> };
  /** A scan was cancelled: the worker running it aborts its engine. */
  'scan-cancelled': { scan_id: string };
  /** A scan was queued: idle workers claim at once instead of at their next poll. */
  'scan-queued': { scan_id: string };
}
export type Topic = keyof BusMessages;

export interface EventBus {
  publish<T extends Topic>(topic: T, message: BusMessages[T]): Promise<void>;
  subscribe<T extends Topic>(topic: T, handler: (message: BusMessages[T]) => void): () => void;
  close(): Promise<void>;
}

/** One process: an EventEmitter. */
export class MemoryEventBus implements EventBus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish<T extends Topic>(topic: T, message: BusMessages[T]): Promise<void> {
    // Delivered asynchronously, as Redis would, so publishers never run subscribers' code inline.
    setImmediate(() => this.emitter.emit(topic, message));
  }

  subscribe<T extends Topic>(topic: T, handler: (message: BusMessages[T]) => void): () => void {
    this.emitter.on(topic, handler);
    return () => this.emitter.off(topic, handler);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** Many processes: Redis pub/sub (a dedicated subscriber connection, as Redis requires). */
export class RedisEventBus implements EventBus {
  private readonly local = new MemoryEventBus();
  private readonly subscriber: Redis;
  private readonly ready: Promise<unknown>;

  constructor(
    private readonly publisher: Redis,
    logger: Logger,
    private readonly prefix = 'vigil:',
  ) {
    this.subscriber = publisher.duplicate();
    this.subscriber.on('error', (err) => logger.warn({ err: err.message }, 'redis subscriber error'));
    this.subscriber.on('message', (channel: string, raw: string) => {
      if (!channel.startsWith(this.prefix)) return;
      try {
        void this.local.publish(channel.slice(this.prefix.length) as Topic, JSON.parse(raw));
      } catch (error) {
        logger.warn({ err: error, channel }, 'dropped a malformed bus message');
      }
    });
    const topics: Topic[] = ['usage', 'scan-cancelled', 'scan-queued'];
    this.ready = this.subscriber.subscribe(...topics.map((t) => this.prefix + t));
  }

  /** Resolves once the subscription is active, so no message published after start-up is missed. */
  async whenReady(): Promise<void> {
    await this.ready;
  }

  async publish<T extends Topic>(topic: T, message: BusMessages[T]): Promise<void> {
    await this.publisher.publish(this.prefix + topic, JSON.stringify(message));
  }

  subscribe<T extends Topic>(topic: T, handler: (message: BusMessages[T]) => void): () => void {
    return this.local.subscribe(topic, handler);
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
