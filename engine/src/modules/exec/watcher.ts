/**
 * Watches directories (recursively) and calls `onChange` once per burst of changes (debounced), so saving many
 * files at once, or an editor's write-rename dance, restarts the process once. Changes that match an ignore
 * pattern (relative to the watched directory), or that lie under an ignored directory, are dropped.
 */
import { watch, type FSWatcher } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve, sep } from 'node:path';
import type picomatchType from 'picomatch';
import type { Logger } from 'pino';

// Required only when a watcher has ignore patterns: an engine that watches nothing does not load it at start-up.
const requireHere = createRequire(import.meta.url);
const loadPicomatch = (): typeof picomatchType => requireHere('picomatch') as typeof picomatchType;

export const DEFAULT_DEBOUNCE_MS = 200;
/** Changes under these never restart anything (dependency installs, VCS metadata). */
const IGNORED = /(^|[/\\])(node_modules|\.git)([/\\]|$)/;

export interface WatchOptions {
  debounceMs?: number;
  /** Relative directories are resolved against it; default the engine's working directory. */
  cwd?: string;
  /** Glob patterns (`dist/**`, `*.log`), matched against the path relative to the watched directory. */
  ignore?: readonly string[];
  /** Directories whose changes are ignored (the data directory), relative to the engine's working directory. */
  ignoreDirs?: readonly string[];
}

export class DirectoryWatcher {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastFile: string | undefined;
  private readonly cwd: string;
  private readonly debounceMs: number;
  private readonly isIgnored: (relative: string) => boolean;
  private readonly ignoredDirs: string[];

  constructor(
    private readonly dirs: readonly string[],
    private readonly onChange: (file: string | undefined) => void,
    private readonly logger: Logger,
    options: WatchOptions = {},
  ) {
    this.cwd = options.cwd ?? process.cwd();
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    const patterns = [...(options.ignore ?? [])];
    // `dist` also ignores everything below it, as in a .gitignore.
    const picomatch = patterns.length > 0 ? loadPicomatch() : undefined;
    const matcher = picomatch?.(patterns, { dot: true });
    const below = picomatch?.(
      patterns.map((p) => `${p}/**`),
      { dot: true },
    );
    this.isIgnored = (relative) => Boolean(matcher?.(relative) || below?.(relative));
    // The data directory belongs to the engine: relative to the engine's working directory, not the process's.
    this.ignoredDirs = (options.ignoreDirs ?? []).map((dir) => resolve(dir));
  }

  start(): void {
    for (const dir of this.dirs) {
      const abs = resolve(this.cwd, dir);
      try {
        const watcher = watch(abs, { recursive: true }, (_event, file) => this.changed(abs, file ?? undefined));
        watcher.on('error', (err) => this.logger.warn({ err, dir: abs }, `stopped watching ${abs}`));
        this.watchers.push(watcher);
      } catch (err) {
        this.logger.warn({ err, dir: abs }, `cannot watch ${abs}: ${(err as Error).message}`);
      }
    }
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }

  private ignored(dir: string, file: string): boolean {
    if (IGNORED.test(file)) return true;
    if (this.isIgnored(file.split(sep).join('/'))) return true;
    const abs = resolve(dir, file);
    return this.ignoredDirs.some((ignored) => abs === ignored || abs.startsWith(`${ignored}${sep}`));
  }

  private changed(dir: string, file: string | undefined): void {
    if (file && this.ignored(dir, file)) return;
    this.lastFile = file;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onChange(this.lastFile);
    }, this.debounceMs);
  }
}
