import type { DeliveryStatus } from '../../db/schema/index.ts';

/** How a platform call of a publishing run ended: the platform's answer, or none in time. */
export type PlatformCallResult = 'published' | 'rejected' | 'unknown';

/** What the schedulers finish, as it is committed. */
export type Outcome =
  /** One webhook delivery attempt made by the delivery worker, by its delivery-log status. */
  | { kind: 'webhook_delivery'; status: DeliveryStatus }
  /** One platform called by a publishing run. */
  | { kind: 'platform_call'; platform: string; result: PlatformCallResult }
  /** One publishing run finished: at least one platform accepted the item, or none did. */
  | { kind: 'publish_run'; result: 'published' | 'failed' };

/**
 * How the core tells whoever counts (the metrics door) what work came to, without knowing who
 * listens. Reported after the commit that records the outcome; listeners are called synchronously
 * and must be cheap.
 */
export class Outcomes {
  private readonly listeners = new Set<(outcome: Outcome) => void>();

  report(outcome: Outcome): void {
    for (const listener of this.listeners) listener(outcome);
  }

  /** Returns the function that stops listening. */
  listen(listener: (outcome: Outcome) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
