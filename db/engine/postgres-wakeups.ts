import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Queryable } from './postgres-executor.ts';

/** The channel every process of one database notifies and listens on. */
export const WAKEUP_CHANNEL = 'service_wakeups';

/** After a failed LISTEN connection: the first retry, doubled on each failure up to the last. */
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 10_000;

export interface WakeupListener {
  onJob: (job: string) => void;
  /** The connection was down: notifications sent meanwhile are lost, so everything may be due. */
  onGap?: () => void;
}

/**
 * Wake-ups between the processes on one PostgreSQL database: `notify` sends `pg_notify` (inside a
 * unit on the unit's connection, so it is delivered at commit and dropped on rollback), and one
 * LISTEN connection per process hears the others'. A process's own notifications carry its origin
 * and are passed over: it has woken its schedulers already. The LISTEN connection is reopened after
 * any failure, with backoff; the schedulers' polling covers what is missed meanwhile.
 */
export class PostgresWakeups {
  private readonly origin = randomBytes(6).toString('base64url');
  private readonly listeners = new Set<WakeupListener>();
  private client: pg.Client | null = null;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Jobs woken outside a unit this turn of the event loop, sent together in one statement. */
  private pending = new Set<string>();

  constructor(
    private readonly pool: pg.Pool,
    /** The connection of the unit the caller runs in, if any. */
    private readonly unitClient: () => Queryable | undefined,
  ) {}

  /** The backend pid of the LISTEN connection (for tests that cut it), or null while it is down. */
  get listenerPid(): number | null {
    return (this.client as (pg.Client & { processID?: number }) | null)?.processID ?? null;
  }

  notify(job: string): void {
    if (this.closed) return;
    const payload = `${this.origin}:${job}`;
    const client = this.unitClient();
    if (client) {
      // Queued on the unit's connection ahead of its commit; a failure (the transaction aborted
      // already) only costs the other processes a poll.
      client.query({ text: 'select pg_notify($1, $2)', values: [WAKEUP_CHANNEL, payload] }).catch(() => {});
      return;
    }
    if (this.pending.size === 0) setImmediate(() => this.flush());
    this.pending.add(payload);
  }

  private flush(): void {
    const payloads = [...this.pending];
    this.pending.clear();
    if (payloads.length === 0 || this.closed || this.pool.ended) return;
    this.pool
      .query({
        text: 'select pg_notify($1, payload) from unnest($2::text[]) as payload',
        values: [WAKEUP_CHANNEL, payloads],
      })
      .catch(() => {});
  }

  /** Starts hearing other processes' wake-ups (the connection opens on the first listener). Returns the function that stops. */
  listen(listener: WakeupListener): () => void {
    this.listeners.add(listener);
    if (!this.client && !this.retryTimer) void this.connect();
    return () => {
      this.listeners.delete(listener);
    };
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.closed) return;
    const client = new pg.Client(this.pool.options);
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => {});
      this.scheduleRetry();
    };
    client.on('error', fail);
    client.on('end', fail);
    client.on('notification', (message) => {
      if (message.channel !== WAKEUP_CHANNEL || !message.payload) return;
      const split = message.payload.indexOf(':');
      if (split < 0 || message.payload.slice(0, split) === this.origin) return;
      const job = message.payload.slice(split + 1);
      for (const listener of this.listeners) listener.onJob(job);
    });
    try {
      await client.connect();
      await client.query(`listen ${WAKEUP_CHANNEL}`);
    } catch {
      fail();
      return;
    }
    if (this.closed) {
      failed = true;
      await client.end().catch(() => {});
      return;
    }
    // A forgotten close() must not keep a process alive on this connection alone.
    (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
    const reconnected = this.retryMs !== FIRST_RETRY_MS;
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    // Anything sent while the connection was down went unheard.
    if (reconnected) for (const listener of this.listeners) listener.onGap?.();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      client.removeAllListeners('error');
      client.on('error', () => {});
      await client.end().catch(() => {});
    }
  }
}
