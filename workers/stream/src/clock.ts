/**
 * Frame timestamps (epoch ms) that strictly increase within this process. Stream clients drop an item frame whose
 * timestamp is not greater than the previous one (docs/protocol.md §6), so two changes in the same millisecond
 * would lose the second. The clock runs ahead of the wall clock by at most `MAX_LEAD_MS` under a sustained burst of
 * more than 1,000 frames per second; beyond that it falls back to the wall clock.
 */
const MAX_LEAD_MS = 1000;
let last = 0;

export function frameTimestamp(): number {
  const now = Date.now();
  last = now > last ? now : last + 1 <= now + MAX_LEAD_MS ? last + 1 : now;
  return last;
}
