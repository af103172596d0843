/**
 * The request deadlines of one server. Every request gets the same timeout, so deadlines come due in the order
 * requests were admitted: a linked list in that order and one timer for its head replace a timer per request
 * (a `Timeout` object, its async id and a clock read for every request, and a clearTimeout for nearly all).
 */
export interface Due {
  /** Epoch ms at which `expire()` is called unless the entry was removed first. */
  readonly deadline: number;
  prevDue: Due | undefined;
  nextDue: Due | undefined;
  /** In the queue. */
  queued: boolean;
  expire(): void;
}

export class DeadlineQueue {
  private head: Due | undefined;
  private tail: Due | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (epoch ms). */
  private timerAt = 0;

  add(entry: Due): void {
    entry.queued = true;
    entry.prevDue = this.tail;
    entry.nextDue = undefined;
    if (this.tail === undefined) this.head = entry;
    else this.tail.nextDue = entry;
    this.tail = entry;
    if (this.timer === undefined || entry.deadline < this.timerAt) this.arm(entry.deadline);
  }

  remove(entry: Due): void {
    if (!entry.queued) return;
    entry.queued = false;
    const { prevDue, nextDue } = entry;
    if (prevDue === undefined) this.head = nextDue;
    else prevDue.nextDue = nextDue;
    if (nextDue === undefined) this.tail = prevDue;
    else nextDue.prevDue = prevDue;
    entry.prevDue = undefined;
    entry.nextDue = undefined;
    if (this.head === undefined && this.timer !== undefined) {
      clearTimeout(this.timer); // nothing pending: no timer left behind (it would hold the process up)
      this.timer = undefined;
    }
    // Otherwise the timer stays armed: when it fires early it finds nothing due and re-arms for the new head.
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    try {
      for (let entry = this.head; entry !== undefined && entry.deadline <= now; entry = this.head) {
        this.remove(entry);
        entry.expire();
      }
    } finally {
      // re-armed even if an expiry threw: the deadlines after it still come due
      if (this.head !== undefined && this.timer === undefined) this.arm(this.head.deadline);
    }
  }
}
