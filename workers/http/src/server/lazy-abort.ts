/**
 * An abort signal that costs nothing until someone reads it. Every request carries one (client gone, deadline
 * passed), but creating an AbortController per request is a measurable share of svc-http's CPU, and most
 * readers never look: the controller is created on the first read of `signal`, already aborted if `abort()` came
 * first.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private aborted = false;
  private hook: (() => void) | undefined;

  /**
   * Runs `fn` on abort instead of needing the signal (at once when already aborted); a later call replaces it.
   * Cheaper than a signal listener for a caller that cancels by id.
   */
  onAbort(fn: () => void): void {
    if (this.aborted) fn();
    else this.hook = fn;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.controller?.abort();
    this.hook?.();
  }
}
