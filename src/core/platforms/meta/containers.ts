/**
 * Meta's two-step publishing, shared by Instagram and Threads: a media container is made from URLs
 * Meta downloads itself, moves through IN_PROGRESS to FINISHED (or ERROR, or EXPIRED when not
 * published within 24 h), and only a FINISHED container can be published. This is the container's
 * life and its polling; making and publishing containers is container-publisher.ts.
 */
import { PlatformError, type LiveSession } from '../platform-client.ts';

export const CONTAINER_STATUSES = ['IN_PROGRESS', 'FINISHED', 'ERROR', 'EXPIRED', 'PUBLISHED'] as const;
export type ContainerStatus = (typeof CONTAINER_STATUSES)[number];

export const isContainerStatus = (value: unknown): value is ContainerStatus =>
  typeof value === 'string' && (CONTAINER_STATUSES as readonly string[]).includes(value);

/** The container was not published within 24 h (Instagram's 2207020, or status EXPIRED): make a new one. */
export class ContainerExpired extends PlatformError {}

/**
 * The publish of a container that is not FINISHED yet: poll again, then publish. Not `transient`: the
 * framework would call an unanswered create call an unknown outcome, while this one is a definite
 * refusal that made nothing.
 */
export class ContainerNotReady extends PlatformError {}

/** A create answer's container id (Meta sends it as a string, sometimes as a number). */
export function containerIdOf(platformName: string, answer: Record<string, unknown>, subject: string): string {
  const id = typeof answer.id === 'number' ? String(answer.id) : answer.id;
  if (typeof id !== 'string' || !id) {
    throw new PlatformError('transient', `${platformName} answered the container for ${subject} without an id.`);
  }
  return id;
}

export interface ContainerPolling {
  platformName: string;
  /** Reads the container's status once (a `read` call: failures are retried by the framework). */
  readStatus(): Promise<{ code: ContainerStatus; text: string | null }>;
  session: Pick<LiveSession, 'wait'>;
  /** Waits between status reads, in ms; the last one repeats. */
  pollDelaysMs: readonly number[];
  /** How long processing may take in all before the publish gives up (it can resume later). */
  maxProcessingMs: number;
}

/**
 * Polls until FINISHED (or PUBLISHED, when a dead holder got as far as publishing it). ERROR is
 * `media_invalid` with the platform's status text, EXPIRED a `ContainerExpired`, and processing past
 * `maxProcessingMs` `transient`: nothing was published, and the same container is polled again later.
 */
export async function awaitContainer(polling: ContainerPolling, subject: string): Promise<'FINISHED' | 'PUBLISHED'> {
  const { platformName, pollDelaysMs, maxProcessingMs } = polling;
  let waited = 0;
  for (let poll = 0; ; poll++) {
    const { code, text } = await polling.readStatus();
    if (code === 'FINISHED' || code === 'PUBLISHED') return code;
    if (code === 'ERROR') {
      throw new PlatformError(
        'media_invalid',
        `${platformName} could not process ${subject} (status ERROR${text ? `: "${text}"` : ''}). Check that the file meets ${platformName}'s specifications and that its URL is publicly reachable.`,
      );
    }
    if (code === 'EXPIRED') {
      throw new ContainerExpired(
        'media_invalid',
        `${platformName}'s container for ${subject} expired before it was published (status EXPIRED).`,
      );
    }
    const ms = pollDelaysMs[Math.min(poll, pollDelaysMs.length - 1)]!;
    if (waited + ms > maxProcessingMs) {
      throw new PlatformError(
        'transient',
        `${platformName} was still processing ${subject} after ${Math.round(waited / 1000)} s (status IN_PROGRESS); publish again later to continue with the same container.`,
      );
    }
    await polling.session.wait(ms);
    waited += ms;
  }
}
