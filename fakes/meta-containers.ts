/**
 * Meta's container publishing as the fakes of Instagram and Threads answer it: a container is made on
 * `/{user-id}/{create edge}`, read on `/{id}` (its status, or a published post's fields), published
 * once FINISHED on `/{user-id}/{publish edge}` within the account's 24-hour quota, and the account's
 * posts are listed newest first. What a container is, how it moves on, and each refusal's codes are
 * the fake's own (`ContainerApiParts`).
 */
import type { FakeClock } from './shared/clock.ts';
import {
  FakeRouter,
  startFakeServer,
  type FakeRequest,
  type FaultScript,
  type Handler,
  type Reply,
  type RequestLog,
  type RunningFakeServer,
} from './shared/http-fake.ts';
import {
  fieldList,
  graphParams,
  invalidParameter,
  noSuchObject,
  pickFields,
  type PublishingQuota,
} from './meta-graph.ts';
import { isReply, type MetaLogin } from './meta-login.ts';

export type FakeContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

interface Owned {
  id: string;
  ownerId: string;
}

/** A route: its edge under `/{user-id}/`, and its label in the request log. */
interface EdgeRoute {
  edge: string;
  label: string;
}

/** Where a container API's calls go and how the request log labels them. */
export interface ContainerRoutes {
  /**
   * The edge a container is made on (POST) and the account's posts are listed from (GET), with
   * their labels, and the label of one post read on `/{id}` (a container's is `container.status`).
   */
  posts: { edge: string; create: string; list: string; read: string };
  publish: EdgeRoute;
  publishingLimit: EdgeRoute;
}

export interface ContainerApiParts<User, Container extends Owned & { isCarouselItem: boolean }, Post extends Owned> {
  /** Checks a create call's parameters, downloads its media and makes the container (or refuses). */
  create(request: FakeRequest, user: User): Reply | Promise<Reply>;
  container(id: string): Container | undefined;
  status(container: Container): FakeContainerStatus;
  /** A status read of the container (a read may move it on), with the fields asked. */
  readStatus(container: Container, fields: string[]): Reply;
  /** Makes the post from a FINISHED container. */
  publish(container: Container): Post;
  /** The account's posts, oldest first. */
  posts(): Post[];
  postFields(post: Post): Record<string, unknown>;
  refusals: {
    /** No such container of this account, or a carousel item published on its own. */
    unknownContainer(id: string): Reply;
    carouselItem(id: string): Reply;
    /** A publish of a container that is not FINISHED. */
    notPublishable(status: Exclude<FakeContainerStatus, 'FINISHED'>): Reply;
    quotaReached(): Reply;
  };
}

export class FakeContainerApi<User, Container extends Owned & { isCarouselItem: boolean }, Post extends Owned> {
  private readonly idOf: (user: User) => string;

  constructor(
    private readonly login: MetaLogin<User>,
    private readonly quota: PublishingQuota,
    private readonly faults: FaultScript,
    private readonly routes: ContainerRoutes,
    private readonly parts: ContainerApiParts<User, Container, Post>,
  ) {
    this.idOf = login.options.idOf;
  }

  /** The container API's routes on `router`; add them after `/me`, since `/{id}` takes any other path. */
  addRoutes(router: FakeRouter): FakeRouter {
    const { publishingLimit, publish, posts } = this.routes;
    const asOwner = this.login.asOwner.bind(this.login);
    return router
      .add('GET', `/:userId/${publishingLimit.edge}`, publishingLimit.label, asOwner(this.publishingLimit, false))
      .add('POST', `/:userId/${publish.edge}`, publish.label, asOwner(this.publish, true))
      .add('POST', `/:userId/${posts.edge}`, posts.create, asOwner(this.parts.create, true))
      .add('GET', `/:userId/${posts.edge}`, posts.list, asOwner(this.list, false))
      .add(
        'GET',
        '/:id',
        (request) => (this.parts.container(request.params.id!) ? 'container.status' : posts.read),
        this.readObject,
      );
  }

  private readonly publishingLimit = (request: FakeRequest, user: User): Reply =>
    this.quota.answer(request, this.idOf(user));

  private readonly publish = (request: FakeRequest, user: User): Reply => {
    const { refusals } = this.parts;
    const creationId = graphParams(request).creation_id;
    if (!creationId) return invalidParameter('The parameter creation_id is required.');
    const container = this.parts.container(creationId);
    if (!container || container.ownerId !== this.idOf(user)) return refusals.unknownContainer(creationId);
    if (container.isCarouselItem) return refusals.carouselItem(creationId);
    const status = this.parts.status(container);
    if (status !== 'FINISHED') return refusals.notPublishable(status);
    if (this.quota.isUsedUp(this.idOf(user))) return refusals.quotaReached();
    const post = this.parts.publish(container);
    if (this.faults.takeDrop(this.routes.publish.label)) return { drop: true, createdPost: true };
    return { status: 200, json: { id: post.id }, createdPost: true };
  };

  private readonly list = (request: FakeRequest, user: User): Reply => {
    const limit = request.query.limit === undefined ? 25 : Number(request.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalidParameter('Param limit must be 1 to 100.');
    const fields = fieldList(request, ['id']);
    const data = this.parts
      .posts()
      .filter((post) => post.ownerId === this.idOf(user))
      .reverse()
      .slice(0, limit)
      .map((post) => pickFields(this.parts.postFields(post), ['id', ...fields]));
    return { status: 200, json: { data } };
  };

  /** GET /{id}: a container's status, or a published post's fields. */
  private readonly readObject = (request: FakeRequest): Reply => {
    const access = this.login.authenticate(request);
    if (isReply(access)) return access;
    const id = request.params.id!;
    const owner = this.idOf(access.user);
    const fields = fieldList(request, ['id']);
    const container = this.parts.container(id);
    if (container && container.ownerId === owner) return this.parts.readStatus(container, fields);
    const post = this.parts.posts().find((candidate) => candidate.id === id);
    if (post && post.ownerId === owner)
      return { status: 200, json: pickFields(this.parts.postFields(post), ['id', ...fields]) };
    return noSuchObject(id, 'get');
  };
}

export interface MetaServerParts<User> {
  login: MetaLogin<User>;
  /** POST /oauth/access_token (host and envelope are the platform's own). */
  codeExchange: { label: string; handler: Handler };
  /** GET /me. */
  me: Handler;
  containerApi: { addRoutes(router: FakeRouter): FakeRouter };
}

/** One origin serving the consent page, the token endpoints and the Graph calls, as the fakes do. */
export function startMetaServer<User>(
  { clock, log, faults }: { clock: FakeClock; log: RequestLog; faults: FaultScript },
  parts: MetaServerParts<User>,
  { port, host }: { port?: number; host?: string },
): Promise<RunningFakeServer> {
  const router = parts.login
    .addRoutes(new FakeRouter())
    .add('POST', '/oauth/access_token', parts.codeExchange.label, parts.codeExchange.handler)
    .add('GET', '/me', 'me', parts.me);
  return startFakeServer({
    router: parts.containerApi.addRoutes(router),
    clock,
    log,
    faults,
    notFound: (request) => noSuchObject(request.path.split('/').filter(Boolean).join('/'), 'get'),
    port,
    host,
  });
}
