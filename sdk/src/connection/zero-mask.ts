/**
 * Client frames must carry a masking key (RFC 6455 §5.3), which exists to keep browser scripts from steering
 * cache-poisoning bytes through proxies. A worker process is not a browser page, so the key is all zeros: `ws`
 * then sends the payload as it is instead of drawing random bytes and copying the payload through an XOR, and the
 * engine's `ws` skips unmasking it. Given as `generateMask` to every WebSocket the SDK opens (the engine
 * connection and data channels).
 */
export function zeroMask(mask: Buffer): void {
  mask.fill(0);
}
