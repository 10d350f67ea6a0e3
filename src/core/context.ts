import type { Db } from '../../db/client.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Logger } from './log.ts';
import { OAUTH_SCOPES, type OAuthScope } from './oauth/metadata.ts';
import type { Outcomes } from './outcomes.ts';
import type { Workspace } from './accounts/workspace.ts';
import { SERVICE_PRINCIPAL, type Principal } from './people/principal.ts';
import type { Job, Wakeups } from './wakeups.ts';

/** What every process shares: the database, the clock, the configuration and the logger. */
export interface Runtime {
  db: Db;
  clock: Clock;
  config: Config;
  wakeups: Wakeups;
  /** The process's one logger; lines written while serving a request carry its id (log.ts). */
  log: Logger;
  /** Where the schedulers report what their work came to (outcomes.ts). */
  outcomes: Outcomes;
  /**
   * Wakes the schedulers of this process when work becomes due (a no-op when none run). Operations
   * call it inside the request's group commit, before it commits: a woken job must start on a later
   * turn of the event loop (a timer), never synchronously.
   */
  wake: (job: Job) => void;
}

export type Actor = 'rest' | 'mcp' | 'web' | 'job' | 'cli';

/** One request or job step: the runtime plus the workspace it is scoped to and who is acting. */
export interface ServiceContext extends Runtime {
  workspace: Workspace;
  actor: Actor;
  /**
   * Who is acting: a person (their role limits what they may do), an API key or OAuth client not
   * bound to a person (full access within its scopes), or the service itself (jobs, the CLI).
   */
  principal: Principal;
  /**
   * The OAuth scopes the request's credential carries: a token's own, every scope for an API key, a
   * dashboard session, a job or the CLI. runOperation refuses an operation whose declared scope is not
   * among them, for every door alike.
   */
  scopes: readonly OAuthScope[];
  /**
   * The most characters a list answer's JSON may take, for a door whose client caps what it reads
   * (MCP); a page that would pass it holds fewer items (toPage). Unset: no bound but `limit`.
   */
  answerBudget?: number;
}

export const contextFor = (
  runtime: Runtime,
  workspace: Workspace,
  actor: Actor,
  principal: Principal = SERVICE_PRINCIPAL,
  scopes: readonly OAuthScope[] = OAUTH_SCOPES,
): ServiceContext => ({
  ...runtime,
  workspace,
  actor,
  principal,
  scopes,
});
