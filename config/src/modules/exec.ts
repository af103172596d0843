/** `modules::shell::ExecModule` (engine module): spawns and supervises an external process (SPEC.md "Exec module"). */
import { z } from 'zod';

export const execConfigSchema = z
  .object({
    /** Command first, then its arguments; spawned without a shell (arguments reach the process literally). */
    exec: z.array(z.string()).min(1, 'exec needs at least the command, e.g. [node, worker.js]'),
    /** Directories watched recursively; a change restarts the process (debounced). */
    watch: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type ExecConfig = z.infer<typeof execConfigSchema>;
