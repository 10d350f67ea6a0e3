import pg from 'pg';
import type { Queryable } from './postgres-executor.ts';
import { unavailableIfConnectionError } from './postgres-errors.ts';

/** The socket pg writes each statement's messages to. */
interface Corkable {
  cork(): void;
  uncork(): void;
}

const corked = new WeakSet<Corkable>();

/**
 * Holds what is written to the client's socket until the event loop's check phase (setImmediate),
 * so the statements made in one turn leave in one write: each would otherwise be a write of its
 * own, and a wake-up of the server process that reads it. pg corks each statement's messages
 * itself; corking nests, so theirs stay inside this one.
 */
export function corkForThisTurn(client: pg.ClientBase): void {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  if (typeof stream?.cork !== 'function' || typeof stream.uncork !== 'function') return;
  const socket = stream as Corkable;
  if (corked.has(socket)) return;
  corked.add(socket);
  socket.cork();
  setImmediate(() => {
    corked.delete(socket);
    socket.uncork();
  });
}

/** Connections the statements outside units share: more than one, so a slow read does not hold up every other behind it. */
const LANES = 2;

/**
 * Where statements outside a unit run (a read request's reads and rate-limit take, a sandbox post):
 * each is a transaction of its own, so they need no connection of their own either. They share a few
 * connections held open beside the pool, pipelined: a statement is written at once whatever is still
 * unanswered ahead of it, and the statements made in one turn of the event loop leave in one write
 * (corkForThisTurn). Through the pool each would check a connection out and back and be one write
 * and one wake-up of a server process on its own; here, under load, the server reads a turn's
 * statements of many requests at once.
 *
 * Each statement still commits on its own (the extended protocol's Sync after each), so one that
 * fails fails alone. A lane whose connection breaks (the server restarted) fails what was in flight on
 * it, as the pool's connection would, and opens a new connection for the next statement.
 */
export class AutocommitLanes implements Queryable {
  private readonly lanes: Lane[];
  private closed = false;

  constructor(options: pg.ClientConfig, onError: (error: Error) => void) {
    this.lanes = Array.from({ length: LANES }, () => new Lane(options, onError));
  }

  query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    let lane = this.lanes[0]!;
    for (const other of this.lanes) if (other.inFlight < lane.inFlight) lane = other;
    return lane.query(config);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

class Lane {
  inFlight = 0;
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;

  constructor(
    private readonly options: pg.ClientConfig,
    private readonly onError: (error: Error) => void,
  ) {}

  async query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    this.inFlight++;
    try {
      const client = this.client ?? (await (this.connecting ??= this.connect()));
      corkForThisTurn(client);
      return await client.query(config);
    } catch (error) {
      throw unavailableIfConnectionError(error);
    } finally {
      this.inFlight--;
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ ...this.options, pipeline: true } as pg.ClientConfig);
    const drop = (error?: Error) => {
      if (this.client === client) this.client = undefined;
      if (!error) return;
      this.onError(error);
      client.end().catch(() => {});
    };
    client.on('error', drop);
    client.on('end', () => drop());
    try {
      await client.connect();
    } catch (error) {
      client.removeAllListeners();
      throw error;
    } finally {
      this.connecting = undefined;
    }
    this.client = client;
    return client;
  }

  async close(): Promise<void> {
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
