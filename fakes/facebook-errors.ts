/**
 * The codes the fake Facebook answers in the Graph API's error envelope (meta-graph.ts),
 * `{"error":{"message","type","code","error_subcode","fbtrace_id"}}`. Graph sends most errors as HTTP
 * 400 whatever their cause (an expired token, a throttle, a bad parameter); only the code says which,
 * so a client must read it.
 */
import type { Reply } from './shared/http-fake.ts';
import { graphError } from './meta-graph.ts';

export const missingToken = (): Reply => graphError(400, 104, 'An access token is required to request this resource.');

export { invalidToken } from './meta-graph.ts';

export const expiredToken = (at: number): Reply =>
  graphError(
    400,
    190,
    `Error validating access token: Session has expired on ${new Date(at).toUTCString()}. The current time is later.`,
    { subcode: 463 },
  );

/** The user removed the app (or Meta invalidated the session): every token of theirs answers this. */
export const revokedToken = (appId: string): Reply =>
  graphError(400, 190, `Error validating access token: The user has not authorized application ${appId}.`, {
    subcode: 458,
  });

export const pageTokenRequired = (): Reply =>
  graphError(400, 210, '(#210) A page access token is required to request this resource.');

export const permissionsError = (message = '(#200) Permissions error'): Reply => graphError(403, 200, message);

export const readPermissionMissing = (): Reply =>
  graphError(
    400,
    10,
    "(#10) This endpoint requires the 'pages_read_engagement' permission or the 'Page Public Content Access' feature.",
  );

export const invalidParameter = (message: string, subcode?: number): Reply =>
  graphError(400, 100, message.startsWith('(#100)') ? message : `(#100) ${message}`, {
    ...(subcode !== undefined && { subcode }),
  });

export const unknownObject = (id: string): Reply =>
  graphError(
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    { type: 'GraphMethodException', subcode: 33 },
  );

export const nonexistingField = (field: string, nodeType: string): Reply =>
  graphError(400, 100, `(#100) Tried accessing nonexisting field (${field}) on node type (${nodeType})`);

export const unknownPath = (path: string): Reply => graphError(400, 2500, `Unknown path components: ${path}`);

export const duplicateStatus = (): Reply => graphError(400, 506, '(#506) Duplicate status message');

export const invalidImage = (): Reply => graphError(400, 324, '(#324) Missing or invalid image file');

export const videoFetchFailed = (): Reply => graphError(400, 389, '(#389) Unable to fetch video file from URL.');

export const unsupportedVideo = (): Reply =>
  graphError(400, 352, "(#352) The video file you selected is in a format that we don't support.");

/** An outage: Graph's code 2 with `is_transient`, as a 500. */
export const serviceUnavailable = (): Reply =>
  graphError(500, 2, 'An unexpected error has occurred. Please retry your request later.', { transient: true });

export type ThrottleCode = 4 | 17 | 32 | 613 | 80001;

const THROTTLE_MESSAGES: Record<ThrottleCode, string> = {
  4: '(#4) Application request limit reached',
  17: '(#17) User request limit reached',
  32: '(#32) Page request limit reached',
  613: '(#613) Calls to this api have exceeded the rate limit.',
  80001:
    '(#80001) There have been too many calls to this Page account. Wait a bit and try again. For more info, please refer to https://developers.facebook.com/docs/graph-api/overview/rate-limiting.',
};

export const throttled = (code: ThrottleCode, headers: Record<string, string>): Reply =>
  graphError(400, code, THROTTLE_MESSAGES[code], { headers, transient: true });

/** The token endpoint's refusals, in the same envelope. */
export const oauthRefusal = (message: string, code = 100, subcode?: number): Reply =>
  graphError(400, code, message, { ...(subcode !== undefined && { subcode }) });
