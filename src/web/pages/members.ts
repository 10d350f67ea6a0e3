import { Router } from 'express';
import { ROLES } from '../../../db/schema/index.ts';
import type { Runtime } from '../../core/context.ts';
import {
  changeMemberRole,
  inviteMember,
  listMembers,
  listPendingInvites,
  removeMember,
  withdrawInvite,
  type MemberSummary,
  type PendingInvite,
} from '../../core/people/members.ts';
import { adminOf, field, flash, foundOr404, takeFlash, type PageKit } from './kit.ts';

const NOTICES: Record<string, string> = {
  role: 'Role changed.',
  removed: 'Removed from the workspace.',
  withdrawn: 'Invite withdrawn: the link no longer works.',
};

/** /app/members: invite by link, change roles, remove, and the invitations not accepted yet. */
export function memberPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();

  router.get('/members', async (req, res) => {
    const who = await adminOf(kit, req, res, 'Members');
    if (!who) return;
    const [members, invites] = await Promise.all([
      kit.run<MemberSummary[]>(who, listMembers, {}),
      kit.run<PendingInvite[]>(who, listPendingInvites, {}),
    ]);
    const fresh = takeFlash(runtime, req, res, who, 'invite');
    const invited = fresh ? (JSON.parse(fresh) as { email: string; url: string }) : null;
    await kit.page(
      res,
      'Members',
      'pages/members',
      {
        roles: ROLES,
        invited,
        members: members.map((m) => ({
          id: m.user_id,
          email: m.email,
          role: m.role,
          active: m.active,
          you: m.user_id === who.user.id,
          joined: kit.fmt(who, m.joined_at),
        })),
        invites: invites.map((i) => ({
          id: i.invitation_id,
          email: i.email,
          role: i.role,
          expires: kit.fmt(who, i.expires_at),
        })),
        notice: invited ? `Invited ${invited.email}.` : NOTICES[String(req.query.done)],
      },
      'members',
    );
  });

  router.post('/members/invite', (req, res, next) =>
    kit.act(async (who) => {
      const made = await kit.run<{ email: string; invite_url: string }>(who, inviteMember, {
        email: field(req.body, 'email'),
        role: field(req.body, 'role'),
      });
      flash(runtime, res, who, 'invite', JSON.stringify({ email: made.email, url: made.invite_url }));
      return '/app/members';
    })(req, res, next),
  );
  router.post(
    '/members/:id/role',
    kit.act(async (who, req) => {
      await kit.run(who, changeMemberRole, { user_id: req.params.id, role: field(req.body, 'role') });
      return '/app/members?done=role';
    }),
  );
  router.get('/members/:id/remove', async (req, res) => {
    const who = await adminOf(kit, req, res, 'Members');
    if (!who) return;
    const member = await foundOr404(
      kit,
      res,
      async () => (await kit.run<MemberSummary[]>(who, listMembers, {})).find((m) => m.user_id === req.params.id),
      {
        message: 'There is no such member in this workspace.',
        back: { href: '/app/members', text: 'Back to members' },
      },
    );
    if (!member) return;
    await kit.page(res, 'Remove this member?', 'pages/confirm', {
      question: `Remove ${member.email} (${member.role}) from ${who.workspace.name}?`,
      detail: 'They are signed out of this workspace at once, and need a new invite to come back.',
      action: `/app/members/${member.user_id}/remove`,
      button: 'Remove',
      back: '/app/members',
    });
  });
  router.post(
    '/members/:id/remove',
    kit.act(async (who, req) => {
      await kit.run(who, removeMember, { user_id: req.params.id });
      return req.params.id === who.user.id ? '/app/login' : '/app/members?done=removed';
    }),
  );
  router.post(
    '/members/:id/withdraw',
    kit.act(async (who, req) => {
      await kit.run(who, withdrawInvite, { invitation_id: req.params.id });
      return '/app/members?done=withdrawn';
    }),
  );
  return router;
}
