/** The little the core logs through; pino's `Logger` satisfies it. The core imports no logging library. */
export interface CoreLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}
