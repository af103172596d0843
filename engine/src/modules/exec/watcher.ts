/**
 * Watches directories (recursively) and calls `onChange` once per burst of changes (debounced), so saving many
 * files at once, or an editor's write-rename dance, restarts the process once.
 */
import { watch, type FSWatcher } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';

export const DEFAULT_DEBOUNCE_MS = 200;
/** Changes under these never restart anything (dependency installs, VCS metadata). */
const IGNORED = /(^|[/\\])(node_modules|\.git)([/\\]|$)/;

export class DirectoryWatcher {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private lastFile: string | undefined;

  constructor(
    private readonly dirs: readonly string[],
    private readonly onChange: (file: string | undefined) => void,
    private readonly logger: Logger,
    private readonly debounceMs = DEFAULT_DEBOUNCE_MS,
    private readonly cwd = process.cwd(),
  ) {}

  start(): void {
    for (const dir of this.dirs) {
      const abs = resolve(this.cwd, dir);
      try {
        const watcher = watch(abs, { recursive: true }, (_event, file) => this.changed(file ?? undefined));
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

  private changed(file: string | undefined): void {
    if (file && IGNORED.test(file)) return;
    this.lastFile = file;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onChange(this.lastFile);
    }, this.debounceMs);
  }
}
