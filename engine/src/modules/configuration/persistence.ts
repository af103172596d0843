/**
 * Configuration values on disk: one `<id>.json` per configuration (the whole entry: schema and value), written to a
 * temporary file and renamed over the old one, so a crash leaves the previous or the new content, never half of
 * one. Writes of one id are chained in call order. The module owns nothing else: no timers, no open files.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigurationEntry } from './store.js';

export class ConfigurationFiles {
  private readonly chains = new Map<string, Promise<void>>();

  constructor(readonly directory: string) {}

  /** Every readable entry, and a message per file that could not be read. */
  async loadAll(): Promise<{ entries: ConfigurationEntry[]; problems: string[] }> {
    await mkdir(this.directory, { recursive: true });
    const entries: ConfigurationEntry[] = [];
    const problems: string[] = [];
    for (const name of (await readdir(this.directory)).filter((n) => n.endsWith('.json'))) {
      try {
        const entry = JSON.parse(await readFile(join(this.directory, name), 'utf8')) as ConfigurationEntry;
        if (typeof entry?.id !== 'string' || `${entry.id}.json` !== name) throw new Error('not a configuration entry');
        entries.push(entry);
      } catch (err) {
        problems.push(`${join(this.directory, name)}: ${(err as Error).message}`);
      }
    }
    return { entries, problems };
  }

  save(entry: ConfigurationEntry): Promise<void> {
    const previous = this.chains.get(entry.id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.write(entry));
    this.chains.set(entry.id, next);
    return next;
  }

  private async write(entry: ConfigurationEntry): Promise<void> {
    const file = join(this.directory, `${entry.id}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(entry, null, 2)}\n`);
    await rename(tmp, file);
  }
}
