/**
 * The Dockerfile, linted and read with the Dockerfile parser and linter of the VS Code Docker tooling
 * (dockerfile-ast, dockerfile-utils; no Docker engine runs here to build it): multi-stage, dependencies installed
 * from the lock file, built with the dev dependencies and pruned to production ones, a slim Node 20 runtime, a
 * non-root user, `svc` as the entrypoint, every workspace package in the image; and a .dockerignore that keeps
 * host builds, dependencies and secrets out of the build context.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../harness.js';

const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const dockerfile = DockerfileParser.parse(text);
const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] })
  .workspaces;

/** The instructions of each stage, by stage name. */
function stages(): Map<string, Instruction[]> {
  const out = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      current = [];
      out.set(
        dockerfile
          .getFROMs()
          .find((f) => f.getRange().start.line === instruction.getRange().start.line)
          ?.getBuildStage() ?? '',
        current,
      );
    }
    current?.push(instruction);
  }
  return out;
}

const args = (instructions: Instruction[] | undefined, keyword: string): string[] =>
  (instructions ?? []).filter((i) => i.getKeyword() === keyword).map((i) => i.getArgumentsContent() ?? '');

describe('Dockerfile', () => {
  it('has no lint errors or warnings', () => {
    expect(
      validate(text).map(
        (d) => `line ${d.range.start.line + 1}: ${typeof d.message === 'string' ? d.message : d.message.value}`,
      ),
    ).toEqual([]);
  });

  it('the linter does flag a broken Dockerfile (so the check above means something)', () => {
    expect(validate('FROM\nRUN\n').length).toBeGreaterThan(0);
  });

  it('builds in one stage on Node 20 and runs in a slim Node 20 stage', () => {
    const froms = dockerfile
      .getFROMs()
      .map((f) => ({ image: f.getImageName(), tag: f.getImageTag(), stage: f.getBuildStage() }));
    expect(froms).toEqual([
      { image: 'node', tag: '${NODE_VERSION}-bookworm', stage: 'build' },
      { image: 'node', tag: '${NODE_VERSION}-bookworm-slim', stage: 'runtime' },
    ]);
    expect(args(dockerfile.getInstructions(), 'ARG')).toContainEqual(
      expect.stringMatching(/^NODE_VERSION=20\.\d+\.\d+$/),
    );
  });

  it('installs from the lock file, builds, then drops the dev dependencies', () => {
    const build = stages().get('build');
    const runs = args(build, 'RUN').join('\n');
    expect(runs).toMatch(/npm ci\b/);
    expect(runs).toMatch(/npm run build/);
    expect(runs).toMatch(/npm prune --omit=dev/);
    // Every workspace's manifest reaches `npm ci`, so the lock file and the image agree.
    const copies = args(build, 'COPY').join('\n');
    for (const ws of workspaces) expect(copies, ws).toContain(`${ws}/package.json`);
    expect(copies).toContain('package-lock.json');
  });

  it('the runtime image holds every workspace built, runs as a non-root user, with svc as the entrypoint', () => {
    const runtime = stages().get('runtime');
    const copies = args(runtime, 'COPY');
    // Nothing from the build context: only what the build stage produced.
    const fromFlags = (runtime ?? [])
      .filter((i) => i.getKeyword() === 'COPY')
      .map((i) => (i as Copy).getFromFlag()?.getValue());
    expect(new Set(fromFlags)).toEqual(new Set(['build']));
    const copied = copies.join('\n');
    for (const ws of workspaces) {
      expect(copied.includes(`/app/${ws}/dist/`) || copied.includes(`/app/${ws.split('/')[0]}/ `), ws).toBe(true);
    }
    expect(copied).toContain('/app/node_modules/');
    expect(args(runtime, 'ENV')).toContain('NODE_ENV=production');
    const user = args(runtime, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    const entrypoint = runtime?.find((i) => i.getKeyword() === 'ENTRYPOINT');
    expect(entrypoint?.getArgumentsContent()).toBe('["svc"]');
    expect(args(runtime, 'RUN').join('\n')).toContain('ln -s /app/cli/dist/main.js /usr/local/bin/svc');
    expect(args(runtime, 'EXPOSE').join(' ').split(/\s+/).sort()).toEqual(['3111', '3112', '49134']);
  });
});

describe('.dockerignore', () => {
  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps host dependencies, builds, git data, local data and env files out of the build context', () => {
    for (const pattern of ['**/node_modules', '**/dist', '.git', 'data', '.env', '.env.*']) {
      expect(ignored, pattern).toContain(pattern);
    }
  });

  it('keeps what the build needs', () => {
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.build.json']) {
      expect(ignored, needed).not.toContain(needed);
    }
    for (const ws of workspaces) expect(ignored, ws).not.toContain(ws.split('/')[0]);
  });
});
