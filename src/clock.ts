/**
 * The server's time: everything time-based (due jobs, leases, backoff, token and URL expiry,
 * the rate limit's refill, createdAt/modifiedAt, formulas' TODAY) reads `clock.now()`.
 *
 * Test mode (docs/testing.md) moves it: `setClock` freezes it at a moment or shifts it by an
 * offset from the real time, `resetClock` gives back the real time. The state is per process:
 * with several sheetd processes on one database, only the process that took the call moves.
 */
let offsetMs = 0;
let frozenAt: number | null = null;

export const clock = {
  now: (): number => (frozenAt !== null ? frozenAt : Date.now() + offsetMs),
};

export interface ClockState {
  now: number;
  frozen: boolean;
  offsetMs: number;
}

export function clockState(): ClockState {
  return { now: clock.now(), frozen: frozenAt !== null, offsetMs: frozenAt !== null ? frozenAt - Date.now() : offsetMs };
}

/** Sets the time: frozen at `at` (it then moves only when set or advanced), or running from `at`. */
export function setClock(at: number, frozen: boolean): void {
  if (frozen) {
    frozenAt = at;
    offsetMs = 0;
  } else {
    frozenAt = null;
    offsetMs = at - Date.now();
  }
}

/** Moves the time forward by ms (frozen time stays frozen). */
export function advanceClock(ms: number): void {
  if (frozenAt !== null) frozenAt += ms;
  else offsetMs += ms;
}

export function resetClock(): void {
  frozenAt = null;
  offsetMs = 0;
}
