/**
 * Glob patterns, as the telemetry sampler's rules and the observability queries (`engine::traces::list`'s `name`
 * and `service`, `engine::logs::list`'s `service`, `engine::metrics::list`'s `name`) take them: `*` matches any run
 * of characters (also none), `?` exactly one, every other character itself (line breaks included).
 *
 * A match takes at most pattern length × text length steps. A regular expression built from the pattern would
 * not: `*a*a*a…b` becomes `^.*a.*a.*a….*b$`, which backtracks through every way of placing the `a`s in a text
 * of `a`s, so one query from any caller could keep a worker busy for hours.
 */
export type GlobMatcher = (text: string) => boolean;

const STAR = 42; // '*'
const ANY = 63; // '?'

/** A matcher for `pattern`, with the common shapes (`*`, no wildcard, `prefix*`) answered without the scan. */
export function globMatcher(pattern: string): GlobMatcher {
  if (pattern === '*') return () => true;
  const firstWildcard = pattern.search(/[*?]/);
  if (firstWildcard === -1) return (text) => text === pattern;
  if (firstWildcard === pattern.length - 1 && pattern.endsWith('*')) {
    const prefix = pattern.slice(0, -1);
    return (text) => text.startsWith(prefix);
  }
  return (text) => globMatches(pattern, text);
}

/**
 * Whether `text` matches `pattern` as a whole. On a mismatch after a `*`, the scan goes back to that star and lets
 * it take one more character; an earlier star never needs to be revisited, because the later one can absorb
 * whatever the earlier one would have.
 */
export function globMatches(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1; // the pattern index of the last `*` passed
  let starEnd = 0; // where in the text that star's run ends for now
  while (t < text.length) {
    const c = p < pattern.length ? pattern.charCodeAt(p) : -1;
    if (c === STAR) {
      star = p++;
      starEnd = t;
    } else if (c === ANY || (c !== -1 && c === text.charCodeAt(t))) {
      p++;
      t++;
    } else if (star !== -1) {
      p = star + 1;
      t = ++starEnd;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern.charCodeAt(p) === STAR) p++;
  return p === pattern.length;
}
