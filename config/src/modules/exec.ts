/** `modules::shell::ExecModule` (engine module): spawns and supervises an external process (docs/config.md). */
import { z } from 'zod';

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name ([A-Za-z_][A-Za-z0-9_]*)');

export const execConfigSchema = z
  .object({
    exec: z
      .array(z.string())
      .min(1, 'exec needs at least the command, e.g. [node, worker.js]')
      .describe('Command first, then its arguments; spawned without a shell (arguments reach the process literally).'),
    watch: z
      .array(z.string().min(1))
      .default([])
      .describe('Directories watched recursively; a change restarts the process (debounced).'),
    ignore: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Glob patterns (relative to the watched directory) whose changes never restart the process. `node_modules`, `.git` and the data directory (`./data`, or `SVC_DATA_DIR`) are always ignored.',
      ),
    build: z
      .array(z.string())
      .min(1, 'build needs at least the command, e.g. [npx, tsc]')
      .optional()
      .describe(
        'Run once before every start (and every restart on a change), e.g. `[npx, tsc]`; spawned without a shell.',
      ),
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory of the process (relative to the engine's working directory)."),
    env: z
      .record(envName, z.union([z.string(), z.number(), z.boolean()]))
      .default({})
      .describe('Extra environment variables; numbers and booleans are passed as their text.'),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "The process's own settings, handed to it as JSON in `SVC_MODULE_CONFIG` (like a capability worker's).",
      ),
  })
  .strict();

export type ExecConfig = z.infer<typeof execConfigSchema>;
