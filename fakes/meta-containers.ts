/**
 * Meta's container publishing as the fakes of Instagram and Threads answer it: a container is made on
 * `/{user-id}/{create edge}`, read on `/{id}` (its status, or a published post's fields), published
 * once FINISHED on `/{user-id}/{publish edge}` within the account's 24-hour quota, and the account's
 * posts are listed newest first. What a container is, how it moves on, and each refusal's codes are
 * the fake's own (`ContainerApiParts`).
 */
import type { FaultScript, FakeRequest, FakeRouter, Reply } from './shared/http-fake.ts';
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

export interface ContainerApiParts<User, Container extends Owned & { isCarouselItem: boolean }, Post extends Owned> {
  /** The edges under `/{user-id}/`, and the route label of each call. */
  edges: { create: string; publish: string; publishingLimit: string; list: string };
  labels: { create: string; publish: string; publishingLimit: string; list: string; get: string };
  publishPermission: string;
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
  constructor(
    private readonly login: MetaLogin<User>,
    private readonly idOf: (user: User) => string,
    private readonly quota: PublishingQuota,
    private readonly faults: FaultScript,
    private readonly parts: ContainerApiParts<User, Container, Post>,
  ) {}

  /** The container API's routes on `router`; add them after `/me`, since `/{id}` takes any other path. */
  addRoutes(router: FakeRouter): FakeRouter {
    const { edges, labels, publishPermission } = this.parts;
    const asOwner = this.login.asOwner.bind(this.login);
    return router
      .add('GET', `/:userId/${edges.publishingLimit}`, labels.publishingLimit, asOwner(this.publishingLimit, null))
      .add('POST', `/:userId/${edges.publish}`, labels.publish, asOwner(this.publish, publishPermission))
      .add('POST', `/:userId/${edges.create}`, labels.create, asOwner(this.parts.create, publishPermission))
      .add('GET', `/:userId/${edges.list}`, labels.list, asOwner(this.list, null))
      .add(
        'GET',
        '/:id',
        (request) => (this.parts.container(request.params.id!) ? 'container.status' : labels.get),
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
    if (this.faults.takeDrop(this.parts.labels.publish)) return { drop: true, createdPost: true };
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
