/** The logger type svc-http uses: the SDK client's pino logger (so svc-http needs no logging dependency of its own). */
import type { SvcClient } from '@svc/sdk';

export type Logger = SvcClient['logger'];
