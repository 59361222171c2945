import { performance } from "node:perf_hooks";

/**
 * Calls `callback` once performance.now() has reached `at`, never before. A plain timer can fire a
 * millisecond or more before performance.now() reaches its moment (Node rounds the delay and counts
 * it on the event loop's own clock, and a stalled loop makes it worse): what it guards would then
 * find itself not due yet and never be looked at again. Early, it is armed again for the rest.
 * `setTimer` arms one timer (the caller keeps it, to cancel it).
 */
export function atMoment(
  at: number,
  callback: () => void,
  setTimer: (fire: () => void, delayMs: number) => void,
): void {
  const arm = () =>
    setTimer(
      () => {
        if (performance.now() < at) arm();
        else callback();
      },
      Math.max(0, at - performance.now()),
    );
  arm();
}
