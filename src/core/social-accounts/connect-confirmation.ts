/**
 * Connecting a live account over OAuth, step three: the person confirms, in the browser that came
 * back from the platform, which accounts the workspace gets (or cancels).
 */
import type { Runtime } from '../context.ts';
import { isOAuthPlatform, oauthProvider } from '../platforms/registry.ts';
import { connectAccounts, invalidState, otherBrowser, refused, type ConnectionOutcome } from './connect-callback.ts';
import { confirmationMatches, consumeConnectState, restoreConnectState } from './connect-states.ts';
import { parseChoices } from './connect-storage.ts';

/**
 * POST /callbacks/{platform}/oauth: the confirmation form came back with the same state, the
 * confirmation token (which must also be this browser's, `browserConfirmation`: a form posted from
 * anywhere else is refused), and either `decision=cancel` or the accounts to connect (ids among those
 * the login offered). The state is spent here, unless the form is refused as it stands.
 */
export async function completeConfirmation(
  runtime: Runtime,
  platform: string,
  form: Record<string, unknown>,
  browserConfirmation: string | undefined,
): Promise<ConnectionOutcome> {
  if (!isOAuthPlatform(platform)) {
    return refused('not_found', `No OAuth connection is served for platform "${platform}".`);
  }
  // An OAuth platform (checked above) always has its OAuth steps.
  const provider = oauthProvider(runtime.config, runtime.clock, platform)!;
  const consumed = await consumeConnectState(runtime, platform, form.state);
  if (!consumed.ok) return invalidState(consumed.reason);
  const { pending } = consumed;
  const state = form.state as string;
  if (pending.choices === null) return invalidState('unknown');
  if (form.confirmation !== browserConfirmation || !confirmationMatches(pending, browserConfirmation)) {
    await restoreConnectState(runtime, state, pending);
    return otherBrowser();
  }
  if (form.decision === 'cancel')
    return { outcome: 'cancelled', platform: provider.platform, returnUrl: pending.returnUrl };
  const offered = parseChoices(pending.choices);
  const picked = [form.account].flat().filter((id): id is string => typeof id === 'string');
  const chosen = offered.filter((account) => picked.includes(account.profile.platformUserId));
  if (chosen.length === 0 || chosen.length !== new Set(picked).size) {
    // Nothing was stored, and the same page may be sent again with a choice.
    await restoreConnectState(runtime, state, pending);
    return refused('invalid_body', 'Choose at least one of the accounts listed, then connect again.');
  }
  return connectAccounts(runtime, provider, pending, chosen);
}
