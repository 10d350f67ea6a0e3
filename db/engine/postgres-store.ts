import type pg from 'pg';
import { AutocommitLanes, corkForThisTurn } from './postgres-autocommit.ts';
import { PostgresDialect, postgresExecutor } from './postgres-executor.ts';
import { postgresSql } from './postgres-sql.ts';
import { PostgresWakeups } from './postgres-wakeups.ts';
import { asyncDb, type AsyncDb } from './session.ts';
import { isConnectionError, unavailableIfConnectionError } from './postgres-errors.ts';
import { started, UnitContext, type Store } from './store.ts';

/**
 * A transaction open on one pooled connection: statements in its async context run on that
 * connection. The connection pipelines (node-postgres' `pipeline` mode): a statement is written as
 * soon as it is made, not after the one before it has answered, and the server answers them in
 * order. So the unit's `begin` goes out with its first statement, and a statement whose answer
 * nothing waits for (a savepoint's release) with the next, each round trip saved a wake-up of the
 * server and of this process on the same cores; and what is sent in one turn of the event loop
 * leaves in one write (corkForThisTurn).
 */
class Unit {
  readonly pipelines = true;
  open = true;
  /** Savepoints open inside it, which names the next one. */
  savepoints = 0;
  /** Whether anything after `begin` was sent: until then a savepoint is the transaction itself (see savepoint). */
  used = false;
  /** Called once it has committed (whenCommitted). */
  readonly committed: (() => void)[] = [];
  /** Statements sent whose answers nobody awaits; the first failure among them fails the commit. */
  private unanswered: Promise<unknown>[] = [];
  private failure: { error: unknown } | undefined;

  constructor(readonly client: pg.PoolClient) {}

  /** Sends a statement now and answers its result. */
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig | string): Promise<pg.QueryResult<R>> {
    this.used = true;
    corkForThisTurn(this.client);
    return this.client.query<R>(config);
  }

  /** Sends a statement whose answer nobody waits for; a failure of it is reported by settle(). */
  send(text: string): void {
    corkForThisTurn(this.client);
    const answer = this.client.query(text);
    answer.catch((error: unknown) => (this.failure ??= { error }));
    this.unanswered.push(answer);
  }

  /**
   * Rolls the transaction back and begins a new one on the same connection, as if nothing had been
   * sent since `begin`: what failed before is forgotten with what it wrote.
   */
  async restart(): Promise<void> {
    await Promise.allSettled(this.unanswered);
    this.unanswered = [];
    this.failure = undefined;
    this.used = false;
    this.send('rollback');
    this.send('begin');
  }

  /** Waits for the statements sent with send(); throws the first failure among them. */
  async settle(): Promise<void> {
    const waiting = this.unanswered;
    this.unanswered = [];
    await Promise.allSettled(waiting);
    if (this.failure) throw this.failure.error;
  }
}

/**
 * The PostgreSQL store: a pool of connections, each unit a transaction on one connection it holds
 * until commit (READ COMMITTED, PostgreSQL's default), each statement outside a unit a transaction
 * of its own on two shared pipelined connections beside the pool (postgres-autocommit.ts). Units
 * run side by side, one per connection; what must not interleave says so in its SQL: claims lock
 * rows (skip locked), a workspace's quota and credits take an advisory lock, maintenance claims its
 * tick in job_ticks.
 *
 * There is no group commit: each unit commits on its own. Group commit saves SQLite's one writer a
 * transaction per request; here writers run in parallel and a commit costs the server one WAL flush,
 * which PostgreSQL groups across connections itself (commit_delay aside).
 */
export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  readonly sql = postgresSql;
  readonly db: AsyncDb;
  private readonly units = new UnitContext<Unit>(this);
  private readonly lanes: AutocommitLanes;

  /** `onConnectionError`: a shared connection broke (it is replaced at the next statement). */
  constructor(
    readonly pool: pg.Pool,
    onConnectionError: (error: Error) => void = () => {},
  ) {
    this.lanes = new AutocommitLanes(pool.options, onConnectionError);
    this.db = asyncDb(
      postgresExecutor(() => {
        const unit = this.units.getStore();
        return unit?.open ? unit : this.lanes;
      }),
      new PostgresDialect(),
    );
    this.wakeups = new PostgresWakeups(pool, () => {
      const unit = this.units.getStore();
      return unit?.open ? unit : undefined;
    });
  }

  inUnit(): boolean {
    return this.units.getStore()?.open === true;
  }

  /**
   * A transaction of its own. As in a group, work that throws has left the transaction as it found
   * it except for what it meant to keep (a failed request's rate-limit take), so the transaction
   * still commits and then the work's error is thrown. A statement that failed on the server has
   * aborted the transaction already: its commit is then a rollback, as the failure demands.
   */
  async inNextCommit<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.inUnit()) return started(work);
    let failure: { error: unknown } | undefined;
    let value: T | undefined;
    try {
      value = await this.transaction(async () => {
        try {
          return await started(work);
        } catch (error) {
          failure = { error };
          return undefined;
        }
      });
    } catch (error) {
      // The work's own failure (which aborted the transaction) is the one to report.
      if (failure && error instanceof TransactionRolledBack) throw failure.error;
      throw error;
    }
    if (failure) throw failure.error;
    return value as T;
  }

  /** Inside a unit or not, where the caller is: outside one each statement runs as a transaction of its own. */
  autocommit<T>(work: () => Promise<T> | T): Promise<T> {
    return started(work);
  }

  async transaction<T>(work: () => Promise<T> | T): Promise<T> {
    if (this.inUnit()) return started(work);
    const client = await this.pool.connect().catch((error: unknown) => {
      throw unavailableIfConnectionError(error);
    });
    const unit = new Unit(client);
    let broken: Error | undefined;
    // A connection that breaks while the unit holds it also says so as an error event, which nothing
    // would hear otherwise (the pool listens only to its idle connections) and which would end the
    // process: the unit's statements fail on their own, and the connection leaves the pool.
    const heard = (error: Error) => (broken ??= error);
    client.on('error', heard);
    let value: T;
    try {
      unit.send('begin');
      try {
        value = await this.units.run(unit, () => started(work));
        // A transaction a failed statement aborted answers its COMMIT with ROLLBACK, not an error.
        const { command } = await unit.query('commit');
        await unit.settle();
        if (command === 'ROLLBACK') throw new TransactionRolledBack();
      } catch (error) {
        await unit.settle().catch(() => {});
        await client.query('rollback').catch((rollbackFailed: unknown) => {
          // The connection itself failed (the server went away): it leaves the pool.
          broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
        });
        throw error;
      }
    } catch (error) {
      if (!broken && isConnectionError(error)) broken = error as Error;
      throw unavailableIfConnectionError(error);
    } finally {
      unit.open = false;
      client.off('error', heard);
      client.release(broken);
    }
    for (const fn of unit.committed) fn();
    return value;
  }

  /** A transaction-scoped advisory lock on the key's hash (a collision only makes one key's holder defer the other's work). */
  async tryLock(key: string): Promise<boolean> {
    const unit = this.units.getStore();
    if (!unit?.open)
      throw new Error('tryLock is for inside a unit: outside one the lock would end with its own statement');
    const { rows } = await unit.query<{ locked: boolean }>({
      // Named, as the executor names statements prepared in the code (its names are `s<n>`).
      name: 'store_try_lock',
      text: 'select pg_try_advisory_xact_lock(hashtext($1)) as locked',
      values: [key],
    });
    return rows[0]?.locked === true;
  }

  async lock(key: string): Promise<void> {
    const unit = this.units.getStore();
    if (!unit?.open)
      throw new Error('lock is for inside a unit: outside one the lock would end with its own statement');
    await unit.query({ name: 'store_lock', text: 'select pg_advisory_xact_lock(hashtext($1))', values: [key] });
  }

  /** lock_timeout for the rest of the transaction (SET LOCAL); its failure is SQLSTATE 55P03. */
  async waitForLocksAtMost(ms: number): Promise<void> {
    const unit = this.units.getStore();
    if (!unit?.open) throw new Error('waitForLocksAtMost is for inside a unit');
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new Error(`waitForLocksAtMost needs a positive integer of ms, not ${ms}`);
    await unit.query(`set local lock_timeout = ${ms}`);
  }

  /** After the unit's commit; one asked for in a savepoint that rolled back still runs (a wake-up is a hint). */
  whenCommitted(fn: () => void): void {
    const unit = this.units.getStore();
    if (unit?.open) unit.committed.push(fn);
    else fn();
  }

  /**
   * A savepoint, sent with the work's first statement and released with whatever follows. The
   * outermost one of a unit that has run nothing yet (every group-committed step starts so) is the
   * transaction itself: no savepoint is sent, and when the work throws the transaction is rolled
   * back and begun again, which undoes what rolling back to a savepoint at its start would.
   */
  async savepoint<T>(work: () => Promise<T> | T): Promise<T> {
    const unit = this.units.getStore();
    if (!unit?.open) return this.transaction(work);
    if (!unit.used && unit.savepoints === 0) return this.asWholeTransaction(unit, work);
    const name = `s${++unit.savepoints}`;
    unit.used = true;
    unit.send(`savepoint ${name}`);
    try {
      const value = await started(work);
      unit.send(`release savepoint ${name}`);
      return value;
    } catch (error) {
      // Rolled back to and released: the unit goes on as it was before the savepoint.
      await unit.query(`rollback to savepoint ${name}`);
      await unit.query(`release savepoint ${name}`);
      throw error;
    } finally {
      unit.savepoints--;
    }
  }

  private async asWholeTransaction<T>(unit: Unit, work: () => Promise<T> | T): Promise<T> {
    unit.savepoints++;
    try {
      return await started(work);
    } catch (error) {
      await unit.restart();
      throw error;
    } finally {
      unit.savepoints--;
    }
  }

  async close(): Promise<void> {
    await this.wakeups.close();
    await this.lanes.close();
    if (!this.pool.ended) await this.pool.end();
  }

  /** NOTIFY and one LISTEN connection (db/engine/postgres-wakeups.ts); the unit's connection carries a notify made inside one. */
  readonly wakeups: PostgresWakeups;

  notify(job: string): void {
    this.wakeups.notify(job);
  }

  listen(onJob: (job: string) => void, onGap?: () => void): () => void {
    return this.wakeups.listen({ onJob, onGap });
  }
}

/** A COMMIT the server answered with ROLLBACK: a statement of the unit failed, and nothing of it was kept. */
export class TransactionRolledBack extends Error {
  override readonly name = 'TransactionRolledBack';
  constructor() {
    super('the transaction was rolled back at commit: a statement in it had failed');
  }
}
