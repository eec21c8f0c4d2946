/**
 * What the verifier kit reads over the network: GETs that fail as FetchError (exit status 3),
 * bounded parallel fetching in order, and the check of a count in the service's JSON.
 *
 * @module
 */

/** The service could not be read: exit status 3. */
export class FetchError extends Error {
  override name = "FetchError";
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

/** What the verification reads over the network. */
export interface Io {
  fetch: typeof fetch;
  readTextFile(path: string): Promise<string>;
  writeTextFile(path: string, text: string): Promise<void>;
  out(line: string): void;
}

export async function get(io: Io, url: string): Promise<Response> {
  let res: Response;
  try {
    res = await io.fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new FetchError(`${url}: ${(error as Error).message}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw new FetchError(`${url} answered ${res.status}`, res.status);
  }
  return res;
}

export async function getJson<T>(io: Io, url: string): Promise<T> {
  const res = await get(io, url);
  try {
    return await res.json() as T;
  } catch {
    throw new FetchError(`${url} did not answer JSON`);
  }
}

export const getBytes = async (io: Io, url: string) =>
  new Uint8Array(await (await get(io, url)).arrayBuffer());

/** The bytes at `url`, or null when it answers 404. */
export async function getOptionalBytes(io: Io, url: string): Promise<Uint8Array | null> {
  try {
    return await getBytes(io, url);
  } catch (error) {
    if (error instanceof FetchError && error.status === 404) return null;
    throw error;
  }
}

/** Runs `work` on each item with at most `width` under way; yields the results in order. */
export async function* inOrder<T, R>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<R>,
): AsyncGenerator<[T, R]> {
  const started: Promise<R>[] = [];
  const start = () => {
    const promise = work(items[started.length]);
    promise.catch(() => {}); // awaited in turn below; not an unhandled rejection meanwhile
    started.push(promise);
  };
  while (started.length < Math.min(width, items.length)) start();
  for (let i = 0; i < items.length; i++) {
    const result = await started[i];
    if (started.length < items.length) start();
    yield [items[i], result];
  }
}

export const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
