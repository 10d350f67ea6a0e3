import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_KEY_NAME, revokeApiKey } from '../core/accounts/api-keys.ts';
import { createWorkspace, getWorkspace, listWorkspaces, setWorkspacePlan } from '../core/accounts/workspaces.ts';
import type { Runtime } from '../core/context.ts';
import { fieldError, ServiceError } from '../core/errors.ts';
import { contextFor } from '../core/context.ts';
import { listHeldGrants, revokeHeldGrant } from '../core/oauth/grant-admin.ts';
import { runOperation } from '../core/operation.ts';
import { startAccountConnection } from '../core/social-accounts/connect.ts';
import { connectSocialAccount, disconnectSocialAccount } from '../core/social-accounts/operations.ts';
import { importTemplates } from '../core/templates/seed.ts';
import { isCredentialsPlatform, OAUTH_PLATFORMS, PLATFORMS } from '../core/platforms/registry.ts';
import { backupDatabase, refuseBackupOnPostgres } from './backup.ts';
import { migrateToPostgres } from './migrate-to-postgres.ts';
import { createKey, listKeys } from '../core/accounts/key-admin.ts';
import { invitePerson } from '../core/people/invitations.ts';
import { changeMemberRole, listMembers, listPendingInvites } from '../core/people/members.ts';
import { membershipOf } from '../core/people/memberships.ts';
import { findUserByEmail, issuePasswordReset, linkUrl } from '../core/people/users.ts';

/** The dashboard's stand-in: account administration from the shell, with --json for scripts. */
const USAGE = `Usage: npm run admin -- <command> [options] [--json]

Commands:
  create-workspace --name N [--plan free|starter|pro|business] [--status active|trialing|past_due|canceled]
  create-key --workspace W [--name N] [--expires-at ISO-8601]
  revoke-key --key-id K
  list-keys --workspace W         the workspace's keys: name, np_live_… and the last 4 characters (never
                                  the key), created, last used, expiry, revoked
  list-users --workspace W        the workspace's people (email, role, whether they have a password)
                                  and its invitations not accepted yet
  set-plan --workspace W [--plan P] [--status S]
  list-workspaces
  connect-account --workspace W --platform ${PLATFORMS.join('|')} --username U
                  [--platform-user-id ID] [--display-name D]
  disconnect-account --id A
  connect-url --workspace W --platform ${OAUTH_PLATFORMS.join('|')} [--return-url U]
                                  the platform's consent URL for a person to open: connects a live
                                  account over OAuth (works once, for 15 minutes)
  import-templates <file.json>    add or update shared templates from a JSON array of entries
                                  (the template resource without "object"; matched by id)
  list-grants --workspace W       the OAuth clients holding live tokens for the workspace: their
                                  scopes and last use
  revoke-grant --workspace W --client C
                                  ends client C's access to the workspace at once (every token)
  create-user --workspace W --email E --role viewer|editor|approver|admin
                                  invites the email and prints the invite link (/app/invite?token=…,
                                  7 days, replacing an earlier one): a new person chooses a password
                                  there, a person with an account accepts with theirs; they are in
                                  the workspace once they accept. A person already in it gets the new role
  reset-password --email E        prints a link (/app/reset?token=…, 7 days) on which the person sets a
                                  new password; their sessions end and their OAuth grants are revoked
  backup --to FILE                an online, consistent copy of the database, taken while the service
                                  runs; FILE must not exist. Media files (MEDIA_DIR) and the encryption
                                  key (ENCRYPTION_KEY, or DATA_DIR/encryption.key) are not in it: keep them too.
                                  SQLite only: on PostgreSQL it answers how to back up with pg_dump
  migrate-to-postgres --to URL    copies this SQLite database into the EMPTY PostgreSQL database at URL
                                  (postgres://user:password@host:port/database), migrating it first, in one
                                  transaction: a failed or stopped run keeps nothing and can be run again.
                                  Stop the service first; then set DATABASE_URL and keep ENCRYPTION_KEY`;

const OPTIONS = {
  name: { type: 'string' },
  plan: { type: 'string' },
  status: { type: 'string' },
  workspace: { type: 'string' },
  'expires-at': { type: 'string' },
  'key-id': { type: 'string' },
  platform: { type: 'string' },
  username: { type: 'string' },
  'platform-user-id': { type: 'string' },
  'display-name': { type: 'string' },
  'return-url': { type: 'string' },
  id: { type: 'string' },
  client: { type: 'string' },
  to: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function required(
  values: Values,
  name: 'name' | 'workspace' | 'key-id' | 'platform' | 'username' | 'id' | 'to' | 'client' | 'email' | 'role',
): string {
  const value = values[name];
  if (!value) throw fieldError(name, `--${name} is required.`);
  return value;
}

/**
 * Runs `action`, naming the fields of an operation's refusal as this door's flags (`expires_at` is
 * `--expires-at` here), so the words are the operation's and only the names are the CLI's.
 */
async function withFlagNames<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ServiceError) || !error.details) throw error;
    const flag = (field: string) => field.replaceAll('_', '-');
    const fieldErrors = Object.fromEntries(
      Object.entries(error.details.fieldErrors).map(([field, messages]) => [flag(field), messages]),
    );
    let message = error.message;
    for (const field of Object.keys(error.details.fieldErrors))
      message = message.replaceAll(`${field}:`, `${flag(field)}:`);
    throw new ServiceError(error.code, message, { formErrors: error.details.formErrors, fieldErrors });
  }
}

/** The import file, read and parsed; an unreadable file or bad JSON is an invalid_body with the reason. */
function readJsonFile(path: string | undefined): unknown {
  if (!path) throw fieldError('file', 'Give the path of a JSON file, such as import-templates templates.json');
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw fieldError('file', `Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw fieldError('file', `${path} is not valid JSON: ${(error as Error).message}`);
  }
}

async function run(
  runtime: Runtime,
  command: string | undefined,
  values: Values,
  args: string[],
): Promise<{ json: unknown; text: string }> {
  switch (command) {
    case 'create-workspace': {
      const { workspace, apiKey } = await createWorkspace(runtime, {
        name: required(values, 'name'),
        plan: values.plan as never,
        status: values.status as never,
      });
      return {
        json: { workspace_id: workspace.id, org_id: workspace.orgId, api_key: apiKey },
        text: `Created workspace ${workspace.id} (${workspace.orgId}, plan ${workspace.plan}, ${workspace.planStatus}).\nAPI key (shown once): ${apiKey}`,
      };
    }
    case 'create-key': {
      const workspace = await getWorkspace(runtime.db, required(values, 'workspace'));
      // The dashboard's operation, so a name or expiry is refused here with the very same words.
      const created = await withFlagNames(async () =>
        runOperation(createKey, contextFor(runtime, workspace, 'cli'), {
          name: values.name ?? DEFAULT_KEY_NAME,
          expires_at: values['expires-at'],
        }),
      );
      const [keyId, apiKey] = [created.id, created.api_key];
      return {
        json: { key_id: keyId, api_key: apiKey },
        text: `Created key ${keyId}.\nAPI key (shown once): ${apiKey}`,
      };
    }
    case 'create-user': {
      const workspace = await getWorkspace(runtime.db, required(values, 'workspace'));
      const email = required(values, 'email');
      const role = required(values, 'role');
      const ctx = contextFor(runtime, workspace, 'cli');
      // Someone already in the workspace gets the new role; anyone else gets an invitation to accept.
      const existing = await findUserByEmail(runtime.db, email);
      if (existing && (await membershipOf(runtime.db, workspace.id, existing.id))) {
        const changed = await runOperation(changeMemberRole, ctx, { user_id: existing.id, role });
        return {
          json: { user_id: changed.user_id, email: changed.email, role: changed.role, invite_url: null },
          text: `${changed.email} is already in the workspace; their role is now ${changed.role}.`,
        };
      }
      const invited = await invitePerson(runtime, { workspaceId: workspace.id, email, role, invitedBy: null });
      const link = linkUrl(runtime, invited.path);
      return {
        json: {
          invitation_id: invited.invitationId,
          email: invited.email,
          role: invited.role,
          invite_url: link,
          expires_at: invited.expiresAt.toISOString(),
        },
        text: `Invited ${invited.email} as ${invited.role}.\nInvite link (valid 7 days, works once; an earlier link of this invite stops working): ${link}`,
      };
    }
    case 'reset-password': {
      const reset = await issuePasswordReset(runtime, required(values, 'email'));
      const link = linkUrl(runtime, reset.path);
      return {
        json: { user_id: reset.userId, reset_url: link },
        text: `Password link (valid 7 days, works once; earlier links stop working): ${link}`,
      };
    }
    case 'revoke-key': {
      const keyId = required(values, 'key-id');
      await revokeApiKey(runtime, keyId);
      return { json: { key_id: keyId, revoked: true }, text: `Revoked key ${keyId}.` };
    }
    case 'list-keys': {
      const workspace = await getWorkspace(runtime.db, required(values, 'workspace'));
      const iso = (at: Date | null) => at?.toISOString() ?? null;
      const keys = (await runOperation(listKeys, contextFor(runtime, workspace, 'cli'), {})).map((key) => ({
        key_id: key.id,
        name: key.name,
        key: key.masked,
        created_at: iso(key.created_at),
        last_used_at: iso(key.last_used_at),
        expires_at: iso(key.expires_at),
        revoked_at: iso(key.revoked_at),
      }));
      return {
        json: { keys },
        text: keys.length
          ? keys
              .map(
                (k) =>
                  `${k.key_id}  ${k.key}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}  ` +
                  `expires ${k.expires_at ?? 'never'}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ''}  ${k.name}`,
              )
              .join('\n')
          : 'No keys.',
      };
    }
    case 'list-users': {
      const workspace = await getWorkspace(runtime.db, required(values, 'workspace'));
      const ctx = contextFor(runtime, workspace, 'cli');
      const users = (await runOperation(listMembers, ctx, {})).map((member) => ({
        user_id: member.user_id,
        email: member.email,
        role: member.role,
        has_password: member.active,
        joined_at: member.joined_at.toISOString(),
      }));
      const invitations = (await runOperation(listPendingInvites, ctx, {})).map((invite) => ({
        invitation_id: invite.invitation_id,
        email: invite.email,
        role: invite.role,
        expires_at: invite.expires_at.toISOString(),
      }));
      const lines = [
        ...users.map(
          (u) => `${u.user_id}  ${u.role.padEnd(8)}  ${u.email}${u.has_password ? '' : '  (no password yet)'}`,
        ),
        ...invitations.map(
          (i) =>
            `${i.invitation_id}  ${i.role.padEnd(8)}  ${i.email}  (invited, not accepted yet; until ${i.expires_at})`,
        ),
      ];
      return {
        json: { users, invitations },
        text: lines.length ? lines.join('\n') : 'No people in this workspace.',
      };
    }
    case 'set-plan': {
      const workspace = await setWorkspacePlan(runtime, required(values, 'workspace'), {
        plan: values.plan,
        status: values.status,
      });
      return {
        json: { workspace_id: workspace.id, plan: workspace.plan, plan_status: workspace.planStatus },
        text: `Workspace ${workspace.id} is on plan ${workspace.plan}, ${workspace.planStatus}.`,
      };
    }
    case 'list-workspaces': {
      const rows = (await listWorkspaces(runtime.db)).map((w) => ({
        workspace_id: w.id,
        org_id: w.orgId,
        name: w.name,
        plan: w.plan,
        plan_status: w.planStatus,
        active_keys: w.activeKeys,
        created_at: w.createdAt.toISOString(),
      }));
      return {
        json: { workspaces: rows },
        text: rows.length
          ? rows
              .map(
                (w) => `${w.workspace_id}  ${w.org_id}  ${w.plan}/${w.plan_status}  keys:${w.active_keys}  ${w.name}`,
              )
              .join('\n')
          : 'No workspaces.',
      };
    }
    case 'connect-account': {
      const account = await connectSocialAccount(runtime, {
        workspaceId: required(values, 'workspace'),
        platform: required(values, 'platform'),
        username: required(values, 'username'),
        platformUserId: values['platform-user-id'],
        displayName: values['display-name'],
      });
      return {
        json: { social_account_id: account.id },
        text: `Connected ${account.platform} account @${account.username} (platform user ${account.platform_user_id}) as ${account.id}.`,
      };
    }
    case 'connect-url': {
      const workspace = await getWorkspace(runtime.db, required(values, 'workspace'));
      const platform = required(values, 'platform');
      if (isCredentialsPlatform(platform)) {
        throw fieldError(
          'platform',
          `${platform} connects with an identifier and an app password, not a consent URL: ` +
            'POST /api/v1/social-accounts/connect with platform, identifier and app_password.',
        );
      }
      const started = await runOperation(startAccountConnection, contextFor(runtime, workspace, 'cli'), {
        platform,
        ...(values['return-url'] !== undefined && { return_url: values['return-url'] }),
      });
      // An OAuth platform (credentials ones were sent away above) answers the consent URL, synchronously.
      if (started instanceof Promise || started.object !== 'social_account_connect') {
        throw new ServiceError('internal', 'connect-url answered no consent URL.');
      }
      return {
        json: { authorize_url: started.authorize_url },
        text: `Open this URL to connect a ${started.platform} account (it works once, until ${started.expires_at}):\n${started.authorize_url}`,
      };
    }
    case 'disconnect-account': {
      const account = await disconnectSocialAccount(runtime, required(values, 'id'));
      return {
        json: { social_account_id: account.id, is_active: false },
        text: `Disconnected ${account.platform} account @${account.username} (${account.id}); it stays listed as inactive.`,
      };
    }
    case 'import-templates': {
      const counts = await importTemplates(runtime.db, readJsonFile(args[0]), runtime.clock.now());
      return { json: counts, text: `Imported templates: ${counts.inserted} inserted, ${counts.updated} updated.` };
    }
    case 'list-grants': {
      const grants = (await listHeldGrants(runtime, required(values, 'workspace'))).map((grant) => ({
        client_id: grant.clientId,
        client_name: grant.clientName,
        scopes: grant.scopes,
        last_used_at: grant.lastUsedAt?.toISOString() ?? null,
      }));
      return {
        json: { grants },
        text: grants.length
          ? grants
              .map(
                (g) =>
                  `${g.client_id}  ${g.scopes.join(' ')}  last used ${g.last_used_at ?? 'never'}  ${g.client_name ?? ''}`,
              )
              .join('\n')
          : 'No client holds a token for this workspace.',
      };
    }
    case 'revoke-grant': {
      const clientId = required(values, 'client');
      const { revokedTokens } = await revokeHeldGrant(runtime, required(values, 'workspace'), clientId);
      return {
        json: { client_id: clientId, revoked_tokens: revokedTokens },
        text: `Revoked ${revokedTokens} token(s) of client ${clientId}; it must be authorized again.`,
      };
    }
    case 'backup': {
      refuseBackupOnPostgres(runtime.db);
      const { file, bytes } = await backupDatabase(runtime.db, required(values, 'to'));
      return {
        json: { file, size_bytes: bytes },
        text: `Backed up the database to ${file} (${bytes} bytes).`,
      };
    }
    case 'migrate-to-postgres': {
      const result = await migrateToPostgres(runtime.db, required(values, 'to'), (line) => console.error(line));
      return {
        json: {
          source: result.source,
          target: result.target,
          rows: result.rows,
          tables: Object.fromEntries(result.tables.map((t) => [t.table, t.rows])),
        },
        text: `Copied ${result.rows} rows in ${result.tables.length} tables from ${result.source} to ${result.target}; every table's row count matches.`,
      };
    }
    default:
      throw new ServiceError('invalid_body', command ? `Unknown command ${command}.\n\n${USAGE}` : USAGE);
  }
}

/** Runs one admin command; resolves with the process exit code. */
export async function runAdmin(runtime: Runtime, argv: string[]): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true }));
  } catch (error) {
    const message = (error as Error).message;
    if (argv.includes('--json')) console.log(JSON.stringify({ error: { code: 'invalid_body', message } }));
    else console.error(`${message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  try {
    const { json, text } = await run(runtime, positionals[0], values, positionals.slice(1));
    console.log(values.json ? JSON.stringify(json) : text);
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (values.json)
      console.log(JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } }));
    else console.error(error.message);
    return 1;
  }
}
