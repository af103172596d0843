/**
 * The `cluster:` key: engines that share it (the same NATS servers and the same `name`) route as one fabric
 * (docs/cluster.md). Absent: the engine runs alone.
 */
import { z } from 'zod';
import { positiveIntSchema } from '@svc/config-kit';

/** A NATS server address: `nats://host:port` (or `tls://`, `ws://`, `wss://`, or a bare `host:port`). */
const natsUrlSchema = z
  .string()
  .min(1)
  .refine((u) => /^((nats|tls|wss?):\/\/)?[^\s/,]+(:\d+)?$/.test(u), {
    message: "expected a NATS server address such as 'nats://127.0.0.1:4222'",
  });

export const clusterConfigSchema = z
  .object({
    /** One NATS server, or several of one NATS cluster (a list, or comma-separated). */
    nats: z.union([natsUrlSchema.array().min(1), z.string().min(1)]).transform((v, ctx) => {
      const list = (Array.isArray(v) ? v : v.split(',')).map((u) => u.trim()).filter((u) => u !== '');
      for (const u of list) {
        if (!natsUrlSchema.safeParse(u).success) {
          ctx.addIssue({ code: 'custom', message: `'${u}' is not a NATS server address (nats://host:port)` });
        }
      }
      if (list.length === 0) ctx.addIssue({ code: 'custom', message: 'give at least one NATS server address' });
      return list;
    }),
    /** The cluster's name: engines with the same name (on the same NATS) form one cluster. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'use letters, digits, - and _ only (it is part of NATS subjects)')
      .default('svc'),
    /** How often each engine announces itself and its registry. */
    heartbeat_interval_ms: positiveIntSchema.default(500),
    /** An engine not heard from for this long is dropped from routing and its in-flight calls fail. */
    heartbeat_timeout_ms: positiveIntSchema.default(3000),
  })
  .strict()
  .refine((c) => c.heartbeat_timeout_ms > c.heartbeat_interval_ms, {
    message: 'heartbeat_timeout_ms must be greater than heartbeat_interval_ms',
    path: ['heartbeat_timeout_ms'],
  });

export type ClusterConfig = z.output<typeof clusterConfigSchema>;
