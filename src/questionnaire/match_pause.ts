/**
 * How long-running matching work gives the event loop its turns (src/questionnaire/match.ts,
 * src/serve/questionnaire_public.ts): a pause between pieces of work, taken only once a slice
 * of time has been used. No imports, so the service's start-up graph may carry it.
 */

/** Gives the event loop a turn: what yielding work awaits between its pieces. */
export type Pause = () => Promise<void>;

/** A macrotask turn, so timers and I/O waiting behind the work run first. */
export const nextTurn: Pause = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Milliseconds of work between two turns unless told otherwise. */
export const DEFAULT_SLICE_MS = 10;

/**
 * A pause that gives the event loop a turn only once `ms` of work ran since the last one, and
 * else returns at once: the work runs in slices of about `ms` however small its pieces. (A
 * turn of `setTimeout(0)` costs about 4 ms once timers nest, so a turn after every small piece
 * would mostly wait.)
 */
export function slicedPause(
  ms: number = DEFAULT_SLICE_MS,
  turn: Pause = nextTurn,
  now: () => number = () => performance.now(),
): Pause {
  let since = now();
  return async () => {
    if (now() - since < ms) return;
    await turn();
    since = now();
  };
}
