import { describe, expect, it } from 'vitest';
import { judgeCampaignAction } from '../../src/core/campaigns/policy.ts';
import { personPrincipal, SERVICE_PRINCIPAL, type Principal } from '../../src/core/people/principal.ts';
import type { PolicySubject, Verdict } from '../../src/core/policy.ts';
import { judgeSocialAccountAction, type SocialAccountFacts } from '../../src/core/social-accounts/policy.ts';
import { judgeDeliveryAction, judgeWebhookAction } from '../../src/core/webhooks/policy.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** The refusal codes of the campaign, webhook and social account policies, one rule at a time. */
describe('resource policies', async () => {
  const runtime = await testRuntime();
  const { workspace } = await makeWorkspace(runtime);
  const now = runtime.clock.now();
  const person = (role: 'viewer' | 'editor' | 'approver' | 'admin'): Principal =>
    personPrincipal({ id: `user-${role}`, email: `${role}@example.com` }, role);
  const subject = (principal: Principal = SERVICE_PRINCIPAL, extra: Partial<PolicySubject> = {}): PolicySubject => ({
    principal,
    workspace,
    now,
    ...extra,
  });
  const code = (verdict: Verdict) => (verdict.allowed ? 'allowed' : verdict.code);

  it('campaign launch: plan, scope, role, state and AI credits', () => {
    const credits = { aiCreditsUsed: 0 };
    const draft = { status: 'draft' as const };
    expect(code(judgeCampaignAction(subject(), draft, credits, 'launch'))).toBe('allowed');
    expect(code(judgeCampaignAction(subject(person('approver')), { status: 'paused' }, credits, 'launch'))).toBe(
      'allowed',
    );
    expect(code(judgeCampaignAction(subject(person('editor')), draft, credits, 'launch'))).toBe('forbidden');
    expect(
      code(judgeCampaignAction(subject(SERVICE_PRINCIPAL, { scopes: ['read', 'write'] }), draft, credits, 'launch')),
    ).toBe('insufficient_scope');
    expect(
      code(
        judgeCampaignAction(
          subject(SERVICE_PRINCIPAL, { workspace: { ...workspace, planStatus: 'past_due' } }),
          draft,
          credits,
          'launch',
        ),
      ),
    ).toBe('payment_required');
    expect(code(judgeCampaignAction(subject(), { status: 'active' }, credits, 'launch'))).toBe('invalid_state');
    const spent = { aiCreditsUsed: workspace.features.monthly_ai_credits };
    const refused = judgeCampaignAction(subject(), draft, spent, 'launch');
    expect(code(refused)).toBe('quota_exceeded');
    expect(refused.allowed ? '' : refused.reason).toContain('AI credits');
  });

  it('webhooks: enable, disable, re-enable, resend failed and resend a delivery', () => {
    const enabled = { isEnabled: true, autoDisabledAt: null };
    const disabled = { isEnabled: false, autoDisabledAt: null };
    const stopped = { isEnabled: false, autoDisabledAt: now };
    const admin = subject(person('admin'));
    expect(code(judgeWebhookAction(admin, stopped, 'reenable'))).toBe('allowed');
    expect(code(judgeWebhookAction(admin, disabled, 'reenable'))).toBe('invalid_state');
    expect(code(judgeWebhookAction(admin, stopped, 'enable'))).toBe('invalid_state');
    expect(code(judgeWebhookAction(admin, disabled, 'enable'))).toBe('allowed');
    expect(code(judgeWebhookAction(admin, enabled, 'enable'))).toBe('invalid_state');
    expect(code(judgeWebhookAction(admin, enabled, 'disable'))).toBe('allowed');
    expect(code(judgeWebhookAction(admin, disabled, 'resend_failed'))).toBe('invalid_state');
    expect(code(judgeWebhookAction(subject(person('approver')), stopped, 'reenable'))).toBe('forbidden');
    expect(code(judgeWebhookAction(subject(SERVICE_PRINCIPAL, { scopes: ['read'] }), stopped, 'reenable'))).toBe(
      'insufficient_scope',
    );
    const failed = { isTest: false, eventId: 'evt_1', queued: false };
    expect(code(judgeDeliveryAction(admin, enabled, failed))).toBe('allowed');
    expect(code(judgeDeliveryAction(admin, disabled, failed))).toBe('invalid_state');
    expect(code(judgeDeliveryAction(admin, enabled, { ...failed, isTest: true }))).toBe('invalid_state');
    expect(code(judgeDeliveryAction(admin, enabled, { ...failed, queued: true }))).toBe('invalid_state');
    expect(code(judgeDeliveryAction(subject(person('editor')), enabled, failed))).toBe('forbidden');
  });

  it('social account reconnect: role, mode, platform, state, the platform app and platforms_limit', () => {
    const facts = (over: Partial<SocialAccountFacts> = {}): SocialAccountFacts => ({
      oauthConfigured: () => true,
      activeAccounts: 0,
      activeOnPlatform: () => false,
      ...over,
    });
    const needs = {
      platform: 'twitter' as const,
      mode: 'live' as const,
      status: 'needs_reconnect' as const,
      isActive: true,
      refreshTokenEncrypted: null,
      tokenExpiresAt: null,
    };
    const admin = subject(person('admin'));
    expect(code(judgeSocialAccountAction(admin, needs, facts(), 'reconnect'))).toBe('allowed');
    expect(code(judgeSocialAccountAction(subject(person('approver')), needs, facts(), 'reconnect'))).toBe('forbidden');
    expect(code(judgeSocialAccountAction(admin, { ...needs, mode: 'sandbox' }, facts(), 'reconnect'))).toBe(
      'invalid_state',
    );
    expect(code(judgeSocialAccountAction(admin, { ...needs, platform: 'bluesky' }, facts(), 'reconnect'))).toBe(
      'invalid_state',
    );
    expect(code(judgeSocialAccountAction(admin, { ...needs, status: 'active' }, facts(), 'reconnect'))).toBe(
      'invalid_state',
    );
    expect(code(judgeSocialAccountAction(admin, needs, facts({ oauthConfigured: () => false }), 'reconnect'))).toBe(
      'platform_not_configured',
    );
    const limit = workspace.features.platforms_limit;
    const inactive = { ...needs, status: 'disconnected' as const, isActive: false };
    expect(code(judgeSocialAccountAction(admin, inactive, facts({ activeAccounts: limit }), 'reconnect'))).toBe(
      'quota_exceeded',
    );
    expect(
      code(
        judgeSocialAccountAction(
          admin,
          inactive,
          facts({ activeAccounts: limit, activeOnPlatform: () => true }),
          'reconnect',
        ),
      ),
    ).toBe('allowed');
  });
});
