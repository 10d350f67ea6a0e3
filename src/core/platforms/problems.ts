/**
 * Why a platform would refuse a post, as data: a code and its numbers (the limit, what the post
 * measures, the unit), the platform, and the English sentence the API answers, built from them here
 * in core. A door that shows problems in its own words (the dashboard's preview) renders them from the
 * code and the numbers; none parses the sentence.
 */
export type PostProblemCode =
  /** The item names a platform id this service does not know. */
  | 'unknown_platform'
  /** No account of the platform is connected in the workspace. */
  | 'account_missing'
  /** The platform no longer accepts the account's tokens. */
  | 'account_needs_reconnect'
  /** The account is connected but inactive. */
  | 'account_inactive'
  /** The text is longer than the platform takes, as it counts (`unit`). */
  | 'text_too_long'
  /** The text has more UTF-8 bytes than the platform takes. */
  | 'text_too_many_bytes'
  | 'too_many_links'
  | 'too_many_hashtags'
  | 'too_many_media'
  /** A video, where the platform takes images only (`url`: the first video). */
  | 'video_refused'
  /** Fewer media than the content type needs (`content_type`). */
  | 'too_few_media_for_type'
  /** No media, where the platform requires at least one. */
  | 'media_required'
  /** The platform's rules threw while judging the post (`detail`). */
  | 'check_failed';

export interface PostProblem {
  code: PostProblemCode;
  /** The platform id the problem is about. */
  platform: string;
  /** The English sentence, as the API answers it. */
  message: string;
  /** The platform's limit, where the problem passes one. */
  limit?: number;
  /** What the post measures against `limit`. */
  measure?: number;
  /** What `measure` and `limit` count ("weighted characters", "UTF-8 bytes", "links", "media items"). */
  unit?: string;
  /** The account's username, for the account problems. */
  username?: string;
  /** The content type, for too_few_media_for_type. */
  content_type?: string;
  /** The first video's URL, for video_refused. */
  url?: string;
  /** What the rules said when they threw, for check_failed. */
  detail?: string;
}

/** The problems the platform's own rules find (not the account ones), or none. */
export const isRuleProblem = (problem: PostProblem): boolean =>
  !['unknown_platform', 'account_missing', 'account_needs_reconnect', 'account_inactive'].includes(problem.code);

/**
 * The problems as the API lists them: each account problem, then the platform's rule problems as one
 * sentence ("twitter: text is 297 weighted characters; the limit is 280. twitter: …"), as a
 * connector's refusal reads.
 */
export function problemMessages(problems: readonly PostProblem[]): string[] {
  const rules = problems.filter(isRuleProblem);
  return [
    ...problems.filter((problem) => !isRuleProblem(problem)).map((problem) => problem.message),
    ...(rules.length > 0 ? [ruleRefusal(rules)] : []),
  ];
}

/** A platform's rule problems as the one refusal its connector answers. */
export const ruleRefusal = (rules: readonly PostProblem[]): string =>
  rules.map((problem) => problem.message).join('. ');
