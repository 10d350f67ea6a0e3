import { problemMessages, type PostProblem } from '../platforms/problems.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import { unavailableAccountProblem, type PlatformAccountLookup } from '../social-accounts/operations.ts';
import type { Connectors, PlatformConnector, PlatformPost } from './connector.ts';
import { composePost, NO_DEFAULTS, type PostDefaults, type PostSource } from './post.ts';

/**
 * What one target platform makes of an item before any call: the connector, the account the post
 * would go out as, the post as composed for it, and every reason it would be refused now. The one
 * judgement both the publishing run (which records a refusal as a rejected attempt) and the publish
 * preview (which lists the problems) make, so the preview can never promise what the run refuses.
 * `problems` are data (a code and its numbers: platforms/problems.ts); `messages` are the sentences
 * the API answers, built from them.
 */
export type PlatformCheck =
  | { platform: string; connector: null; lookup: null; post: null; problems: PostProblem[]; messages: string[] }
  | {
      platform: string;
      connector: PlatformConnector;
      lookup: PlatformAccountLookup;
      post: PlatformPost;
      problems: PostProblem[];
      messages: string[];
    };

export function checkPlatform(
  connectors: Connectors,
  accountFor: (platform: string) => PlatformAccountLookup,
  item: PostSource,
  platform: string,
  defaults: PostDefaults = NO_DEFAULTS,
): PlatformCheck {
  const connector = connectors.get(platform);
  if (!connector) {
    const problem: PostProblem = {
      code: 'unknown_platform',
      platform,
      message: `Unknown platform "${platform}": the known platform ids are ${PLATFORMS.join(', ')}.`,
    };
    return { platform, connector: null, lookup: null, post: null, problems: [problem], messages: [problem.message] };
  }
  const lookup = accountFor(platform);
  const post = composePost(item, connector.platform, defaults);
  const account = unavailableAccountProblem(platform, lookup);
  const problems = [...(account ? [account] : []), ...validate(connector, post)];
  return { platform, connector, lookup, post, problems, messages: problemMessages(problems) };
}

/** A refused check's problems as one attempt error. */
export const refusalOf = (check: PlatformCheck): string => check.messages.join(' ');

/** A connector's rules, where a throw is a refusal with its message rather than a failed run. */
function validate(connector: PlatformConnector, post: PlatformPost): PostProblem[] {
  try {
    return connector.validate(post);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return [
      {
        code: 'check_failed',
        platform: connector.platform,
        detail,
        message: `${connector.platform}: the post could not be checked (${detail})`,
      },
    ];
  }
}
