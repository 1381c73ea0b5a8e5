/**
 * The time background work goes by (due jobs, leases, backoff), in one place so that tests and
 * later features can move it: replace `clock.now`, restore it after.
 */
export const clock = {
  now: (): number => Date.now(),
};
