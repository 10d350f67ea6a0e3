/**
 * What Meta's Graph hosts share, for the fakes of Facebook, Instagram and Threads: the error envelope
 * (`code` says the family, `error_subcode` what went wrong, the `error_user_*` fields the sentence the
 * platform shows its own users), the refusals every Graph host answers the same way, how a call's
 * parameters and `fields` are read, and the rolling 24-hour publishing quota.
 */
import type { FakeClock } from './shared/clock.ts';
import type { FakeRequest, Reply } from './shared/http-fake.ts';

export interface GraphErrorExtra {
  subcode?: number;
  type?: string;
  userTitle?: string;
  userMsg?: string;
  transient?: boolean;
  /** Sent with the refusal (the usage headers of a throttle). */
  headers?: Record<string, string>;
}

export function graphError(status: number, code: number, message: string, extra: GraphErrorExtra = {}): Reply {
  return {
    status,
    ...(extra.headers && { headers: extra.headers }),
    json: {
      error: {
        message,
        type: extra.type ?? 'OAuthException',
        code,
        ...(extra.subcode !== undefined && { error_subcode: extra.subcode }),
        is_transient: extra.transient ?? false,
        ...(extra.userTitle && { error_user_title: extra.userTitle }),
        ...(extra.userMsg && { error_user_msg: extra.userMsg }),
        fbtrace_id: `AfakeTrace${Math.random().toString(36).slice(2, 12)}`,
      },
    },
  };
}

export const invalidToken = (): Reply => graphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');

export const expiredToken = (): Reply =>
  graphError(400, 190, 'Error validating access token: Session has expired.', { subcode: 463 });

export const revokedToken = (): Reply =>
  graphError(
    400,
    190,
    'Error validating access token: The session has been invalidated because the user changed their password or Facebook has changed the session for security reasons.',
    { subcode: 460 },
  );

export const missingPermission = (permission: string): Reply =>
  graphError(403, 10, `Application does not have permission for this action (${permission} is required).`);

export const noSuchObject = (id: string, verb: 'get' | 'post'): Reply =>
  graphError(
    400,
    100,
    `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { subcode: 33, type: 'GraphMethodException' },
  );

export const invalidParameter = (message: string, subcode?: number): Reply =>
  graphError(400, 100, message, { ...(subcode !== undefined && { subcode }) });

/** The call's parameters as Graph reads them: the query, then a form or JSON body over it. */
export function graphParams(request: FakeRequest): Record<string, string> {
  const merged: Record<string, string> = { ...request.query };
  const { body } = request;
  if (body.kind === 'form' || body.kind === 'multipart') Object.assign(merged, body.fields);
  if (body.kind === 'json' && typeof body.value === 'object' && body.value !== null) {
    for (const [name, value] of Object.entries(body.value as Record<string, unknown>)) {
      merged[name] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return merged;
}

/** `fields=a,b` (Graph answers only what is asked, and `fallback` when nothing is). */
export function fieldList(request: FakeRequest, fallback: string[]): string[] {
  const fields = graphParams(request).fields;
  return fields
    ? fields
        .split(',')
        .map((field) => field.trim())
        .filter(Boolean)
    : fallback;
}

/** The named fields of `record` that it has, in the order asked. */
export function pickFields(record: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => name in record).map((name) => [name, record[name]]));
}

/**
 * The rolling 24-hour publishing quota of each account: its posts made in the last 24 hours, plus
 * posts scripted as made (their content does not matter), against a total per account.
 */
export class PublishingQuota {
  private readonly totals = new Map<string, number>();
  private readonly scripted = new Map<string, number[]>();

  constructor(
    private readonly clock: FakeClock,
    private readonly defaultTotal: number,
    /** When each of the account's real posts was made (epoch ms). */
    private readonly postTimes: (userId: string) => number[],
  ) {}

  used(userId: string): number {
    const since = this.clock.now() - 24 * 3600 * 1000;
    const made = [...this.postTimes(userId), ...(this.scripted.get(userId) ?? [])];
    return made.filter((at) => at > since).length;
  }

  total(userId: string): number {
    return this.totals.get(userId) ?? this.defaultTotal;
  }

  isUsedUp(userId: string): boolean {
    return this.used(userId) >= this.total(userId);
  }

  /** `total` per 24 h from now on, and `used` posts counted as made now (they age out in 24 h). */
  script(userId: string, { total, used }: { total?: number; used?: number }): void {
    if (total !== undefined) this.totals.set(userId, total);
    if (used !== undefined) {
      this.scripted.set(userId, [...(this.scripted.get(userId) ?? []), ...Array<number>(used).fill(this.clock.now())]);
    }
  }

  /** GET /{user-id}/…_publishing_limit?fields=quota_usage,config */
  answer(request: FakeRequest, userId: string): Reply {
    const entry = {
      quota_usage: this.used(userId),
      config: { quota_total: this.total(userId), quota_duration: 86_400 },
    };
    return { status: 200, json: { data: [pickFields(entry, fieldList(request, ['quota_usage']))] } };
  }
}
