export const JOBS = ['publishing', 'webhooks', 'generation'] as const;
export type Job = (typeof JOBS)[number];

export const isJob = (name: string): name is Job => (JOBS as readonly string[]).includes(name);

/**
 * How the core tells this process's schedulers that work just became due, so it never waits for a
 * poll. Other processes on the database hear it through the store (Runtime.wake, src/core/runtime.ts).
 * Listeners are called synchronously, often inside a write transaction: they must only schedule work
 * for a later turn of the event loop.
 */
export class Wakeups {
  private readonly listeners = new Map<Job, Set<() => void>>();

  wake(job: Job): void {
    for (const listener of this.listeners.get(job) ?? []) listener();
  }

  /** Returns the function that stops listening. */
  listen(job: Job, listener: () => void): () => void {
    let set = this.listeners.get(job);
    if (!set) this.listeners.set(job, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }
}
