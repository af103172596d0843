/** The files `svc init` writes: a TypeScript worker project that depends only on `@svc/sdk` (and TypeScript). */

export interface InitContext {
  /** The npm package name and the worker name. */
  name: string;
  /** The function id prefix (`my_worker`). */
  prefix: string;
  sdkVersion: string;
}

export function packageJson(ctx: InitContext): string {
  const pkg = {
    name: ctx.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    scripts: {
      build: 'tsc',
      start: 'node dist/worker.js',
      dev: 'exec node dev.mjs',
    },
    dependencies: { '@svc/sdk': `^${ctx.sdkVersion}` },
    devDependencies: { typescript: '^5.9.3', '@types/node': '^20.19.0' },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      outDir: 'dist',
      rootDir: 'src',
      skipLibCheck: true,
    },
    include: ['src'],
  },
  null,
  2,
)}\n`;

export function workerSource(ctx: InitContext): string {
  return `import { registerWorker } from '@svc/sdk';

// SVC_URL, else ws://localhost:49134 (the engine \`svc\` starts by default).
const svc = registerWorker(process.env.SVC_URL, { workerName: '${ctx.name}' });

interface HelloRequest {
  query_params?: Record<string, string | string[] | undefined>;
}

// A function: call it with \`svc trigger ${ctx.prefix}::greet name=ada\`.
svc.registerFunction('${ctx.prefix}::greet', async (payload: { name?: string }, ctx) => {
  ctx.logger.info('greeting', { name: payload.name });
  return { greeting: \`hello \${payload.name ?? 'world'}\` };
});

// The same over HTTP (svc-http, port 3111 by default): GET /${ctx.prefix}/hello?name=ada
svc.registerFunction('${ctx.prefix}::http_hello', async (req: HelloRequest, ctx) => {
  const name = req.query_params?.['name'];
  const body = await ctx.trigger({
    function_id: '${ctx.prefix}::greet',
    payload: { name: typeof name === 'string' ? name : undefined },
  });
  return { status_code: 200, body };
});
svc.registerTrigger({
  type: 'http',
  function_id: '${ctx.prefix}::http_hello',
  config: { api_path: '/${ctx.prefix}/hello', http_method: 'GET' },
});

process.on('SIGTERM', () => void svc.shutdown().then(() => process.exit(0)));
process.on('SIGINT', () => void svc.shutdown().then(() => process.exit(0)));
`;
}

/** `npm run dev`: build, run, and on every change under src/ build again, then restart (no shell in between). */
export const DEV_SCRIPT = `// npm run dev: builds with tsc, runs dist/worker.js, and on a change under src/ rebuilds, then restarts it.
import { spawn, spawnSync } from 'node:child_process';
import { watch } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
let child;
let timer;

function build() {
  return spawnSync(process.execPath, [tsc], { stdio: 'inherit' }).status === 0;
}

function run() {
  child = spawn(process.execPath, ['dist/worker.js'], { stdio: 'inherit' });
}

function stop() {
  return new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function reload() {
  console.error('[dev] src/ changed: building');
  if (!build()) return console.error('[dev] build failed; the running worker is left as it is');
  await stop();
  console.error('[dev] restarting');
  run();
}

if (build()) run();
else console.error('[dev] build failed; waiting for a change');
watch('src', { recursive: true }, () => {
  clearTimeout(timer);
  timer = setTimeout(() => void reload(), 200);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => void stop().then(() => process.exit(0)));
}
`;

export function svcConfig(ctx: InitContext): string {
  return `# svc with the HTTP worker and this worker under the engine's supervisor:
#   svc -c svc-config.yaml
# A change under src/ runs the build, then restarts the worker.
port: \${SVC_PORT:49134}
modules:
  - name: svc-http
    config:
      port: \${SVC_HTTP_PORT:3111}
  - class: modules::shell::ExecModule
    name: ${ctx.name}
    config:
      build: [npx, tsc]
      exec: [node, dist/worker.js]
      watch: [src]
`;
}

export function readme(ctx: InitContext): string {
  return `# ${ctx.name}

A worker for svc, written with \`@svc/sdk\`.

\`\`\`sh
npm install
npm run dev        # build, run, rebuild + restart on every change under src/
\`\`\`

It connects to the engine at \`SVC_URL\` (default \`ws://localhost:49134\`; start one with \`svc\`). Then:

\`\`\`sh
svc trigger ${ctx.prefix}::greet name=ada
curl 'http://localhost:3111/${ctx.prefix}/hello?name=ada'
\`\`\`

\`svc -c svc-config.yaml\` runs the engine, svc-http and this worker together, with the worker under the
engine's supervisor (restarted if it crashes; rebuilt and restarted when \`src/\` changes).
`;
}

export const GITIGNORE = 'node_modules/\ndist/\ndata/\n';
