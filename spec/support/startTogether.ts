// Starts what a spec needs side by side (a Redis, a fake upstream, relay instances) and never loses
// one: when any start fails, those that did start are stopped before the failure is passed on, so
// that nothing keeps Jest from exiting (a plain Promise.all would drop their handles).

/** Something started, and how to stop it. */
export type Start<T> = readonly [start: () => Promise<T>, stop: (started: T) => Promise<unknown>];

/**
 * Starts each at once; answers them in order. When one fails, stops those that started, then
 * rejects with the first failure.
 *
 * @example
 * ```ts
 * const [redis, upstream] = await startTogether([
 *   [() => startRedis(), (server) => server.stop()],
 *   [() => startFakeUpstream(), (fake) => fake.close()],
 * ] as const);
 * ```
 */
export async function startTogether<T extends readonly unknown[]>(starts: { readonly [K in keyof T]: Start<T[K]> }): Promise<T> {
  const list = starts as unknown as ReadonlyArray<Start<unknown>>;
  const settled = await Promise.allSettled(list.map(([start]) => start()));
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed === undefined) return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
  await Promise.allSettled(settled.map((result, i) => (result.status === 'fulfilled' ? list[i]![1](result.value) : undefined)));
  throw failed.reason;
}
