/**
 * Call deadlines without one Node timer per call (the SDK's calls, the engine's invocations). Calls with the same timeout join one list in
 * arrival order, so each list is sorted by deadline; one timer per list is armed for its head. Removing a settled
 * call unlinks it in O(1) and retains nothing, and touches no timer: a list's timer is armed only when it has
 * none, and when it fires it expires the calls whose deadline passed and re-arms for the next one (if any), so
 * steady traffic costs about one timer operation per timeout period instead of two per call. The timers are
 * unref'd: a pending call can only complete over a connection (or a reconnect timer), which keeps the process up.
 *
 * Precision: a call expires when its list's timer fires at or after its deadline (Node timers: a few ms late).
 * Deadlines use the monotonic clock, so a wall-clock jump neither fires nor delays them.
 */
export interface DeadlineEntry {
  readonly id: string;
  deadline: number;
  prev: DeadlineEntry | undefined;
  next: DeadlineEntry | undefined;
  list: DeadlineList | undefined;
}

interface DeadlineList {
  timeoutMs: number;
  head: DeadlineEntry | undefined;
  tail: DeadlineEntry | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();
  private readonly fire = (list: DeadlineList): void => this.expire(list);

  constructor(private readonly onExpire: (id: string) => void) {}

  /** How many timeout values have a list: those with calls waiting, or whose timer has not fired since. */
  get listCount(): number {
    return this.lists.size;
  }

  /** Starts `entry`'s deadline, `timeoutMs` from now. */
  add(entry: DeadlineEntry, timeoutMs: number): void {
    let list = this.lists.get(timeoutMs);
    if (list === undefined) {
      list = { timeoutMs, head: undefined, tail: undefined, timer: undefined };
      this.lists.set(timeoutMs, list);
    }
    entry.deadline = performance.now() + timeoutMs;
    entry.list = list;
    entry.prev = list.tail;
    entry.next = undefined;
    if (list.tail !== undefined) list.tail.next = entry;
    else list.head = entry;
    list.tail = entry;
    if (list.timer === undefined) this.arm(list, timeoutMs);
  }

  /** Cancels `entry`'s deadline (it settled). */
  remove(entry: DeadlineEntry): void {
    const list = entry.list;
    if (list === undefined) return;
    this.unlink(list, entry);
  }

  private arm(list: DeadlineList, ms: number): void {
    list.timer = setTimeout(this.fire, ms, list);
    list.timer.unref();
  }

  private unlink(list: DeadlineList, entry: DeadlineEntry): void {
    if (entry.prev !== undefined) entry.prev.next = entry.next;
    else list.head = entry.next;
    if (entry.next !== undefined) entry.next.prev = entry.prev;
    else list.tail = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
    entry.list = undefined;
  }

  private expire(list: DeadlineList): void {
    list.timer = undefined;
    const now = performance.now();
    let head = list.head;
    while (head !== undefined && head.deadline <= now) {
      this.unlink(list, head);
      this.onExpire(head.id);
      head = list.head;
    }
    if (head !== undefined) {
      if (list.timer === undefined) this.arm(list, Math.max(1, head.deadline - now));
    } else if (this.lists.get(list.timeoutMs) === list) {
      // an empty list goes with its timer, so distinct timeouts (a caller's own `timeout_ms`) are not kept forever
      this.lists.delete(list.timeoutMs);
    }
  }
}
