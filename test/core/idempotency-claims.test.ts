import { describe, expect, it } from 'vitest';
import { runIdempotently } from '../../src/core/idempotency.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** A keyed call that awaits the network runs outside the commit that claimed its key. */
describe('an idempotency key claimed by a call that runs outside its commit', () => {
  it('a retry that took the key over after the first call was given up keeps its answer, whatever the first call answers later', async () => {
    const runtime = await testRuntime();
    const ws = await makeWorkspace(runtime);
    const call = {
      workspaceId: ws.workspace.id,
      key: 'slow-call',
      keyField: 'Idempotency-Key' as const,
      operation: 'testWebhook',
      input: { id: 'whk_x' },
    };
    const failed = () => ({ status: 400, body: { error: 'refused' } });
    const keyed = (body: unknown, during: () => Promise<unknown> = async () => {}) =>
      runIdempotently(
        runtime,
        call,
        async () => {
          await during();
          return { status: 200, body };
        },
        failed,
        () => {},
        true,
      );

    // The first call outlives its claim (given up after two minutes); a retry takes the key over
    // and answers; then the first call answers too.
    const first = await keyed({ answer: 'first' }, async () => {
      runtime.clock.advance(2 * 60_000 + 1);
      expect((await keyed({ answer: 'retry' })).response.body).toEqual({ answer: 'retry' });
    });
    expect(first).toMatchObject({ replayed: false, response: { body: { answer: 'first' } } });
    // What is replayed is the retry's answer: the first call's answer did not overwrite it.
    expect(await keyed({ answer: 'third' })).toMatchObject({ replayed: true, response: { body: { answer: 'retry' } } });

    // And a first call that fails with a 5xx after a retry took over does not free the retry's key.
    const other = { ...call, key: 'slow-failure' };
    await expect(
      runIdempotently(
        runtime,
        other,
        async () => {
          runtime.clock.advance(2 * 60_000 + 1);
          await runIdempotently(
            runtime,
            other,
            async () => ({ status: 200, body: { answer: 'retry' } }),
            failed,
            () => {},
            true,
          );
          throw new Error('the first call failed');
        },
        failed,
        () => {},
        true,
      ),
    ).rejects.toThrow('the first call failed');
    const replay = await runIdempotently(
      runtime,
      other,
      async () => ({ status: 200, body: { answer: 'ran again' } }),
      failed,
      () => {},
      true,
    );
    expect(replay).toMatchObject({ replayed: true, response: { body: { answer: 'retry' } } });
  });
});
