/**
 * The config pipeline's error codes are the kit's (`@svc/config-kit`): the engine's loader and the workers report
 * the same codes. Re-exported here so every package has its catalogue at `src/error-codes.ts`.
 */
export { ConfigErrorCode } from '@svc/config-kit';
