// A per-minute budget's window is the calendar minute on the service's clock. A test that fills one on the real clock
// and expects the next call refused fails when the minute turns between its calls (the budget refills); waiting for
// a fresh minute when little of this one is left keeps its calls in one window.

/** Resolves once at least `ms` of the current minute remain, waiting for the next minute if they do not. */
export async function roomInTheMinute(ms = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
