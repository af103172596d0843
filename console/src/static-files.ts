/**
 * Serves the built front end. `index.html` gets `window.__CONSOLE_CONFIG__` injected; an unknown path that is not
 * an asset answers `index.html` too, so the pages' own URLs (`/functions`, `/traces/<id>`) load the app.
 */
import { readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export class StaticFiles {
  private index: string | undefined;

  constructor(
    private readonly root: string,
    private readonly config: Record<string, unknown>,
  ) {}

  async serve(urlPath: string, res: ServerResponse): Promise<void> {
    const file = this.resolve(urlPath);
    if (file !== undefined && (await isFile(file)) && !file.endsWith('index.html')) {
      const immutable = file.includes(`${sep}assets${sep}`);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      res.end(await readFile(file));
      return;
    }
    if (extname(urlPath) !== '' && !urlPath.endsWith('.html')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${urlPath}`);
      return;
    }
    res.writeHead(200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-cache' });
    res.end(await this.indexHtml());
  }

  private resolve(urlPath: string): string | undefined {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return undefined;
    }
    const file = normalize(join(this.root, decoded));
    return file === this.root || file.startsWith(this.root + sep) ? file : undefined;
  }

  private async indexHtml(): Promise<string> {
    if (this.index !== undefined) return this.index;
    let html: string;
    try {
      html = await readFile(join(this.root, 'index.html'), 'utf8');
    } catch {
      return `<!doctype html><title>svc console</title><p>The console's front end is not built (${this.root} has no
index.html). Run <code>npm run build</code>.</p>`;
    }
    const script = `<script>window.__CONSOLE_CONFIG__=${JSON.stringify(this.config).replace(/</g, '\\u003c')}</script>`;
    this.index = html.replace('</head>', `${script}</head>`);
    return this.index;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
