/**
 * Gives one adapter instance its own streams on a backend shared by the whole test file (the bridged engine): every
 * stream name gets `prefix` on the way in and loses it on the way out, in results and in the change feed.
 */
import type { StreamAdapter, StreamMetadata } from '../../src/adapters/types.js';
import type { StreamWrapperMessage } from '../../src/messages.js';

export function namespaced(inner: StreamAdapter, prefix: string): StreamAdapter {
  const ns = (stream: string) => `${prefix}${stream}`;
  const strip = (m: StreamWrapperMessage): StreamWrapperMessage => ({
    ...m,
    streamName: m.streamName.slice(prefix.length),
  });
  const stripMessage = <R extends { message: StreamWrapperMessage | undefined }>(r: R): R => ({
    ...r,
    message: r.message && strip(r.message),
  });
  return {
    name: inner.name,
    start: () => inner.start(),
    get: (s, g, i) => inner.get(ns(s), g, i),
    set: async (s, g, i, v) => stripMessage(await inner.set(ns(s), g, i, v)),
    delete: async (s, g, i) => stripMessage(await inner.delete(ns(s), g, i)),
    update: async (s, g, i, apply) => stripMessage(await inner.update(ns(s), g, i, apply)),
    list: (s, g) => inner.list(ns(s), g),
    listGroups: (s) => inner.listGroups(ns(s)),
    listAll: async (): Promise<StreamMetadata[]> =>
      (await inner.listAll())
        .filter((m) => m.id.startsWith(prefix))
        .map((m) => ({ ...m, id: m.id.slice(prefix.length) }))
        .sort((x, y) => x.id.localeCompare(y.id)),
    publish: (m) => inner.publish({ ...m, streamName: ns(m.streamName) }),
    onMessage: (listener) =>
      inner.onMessage((m) => {
        if (m.streamName.startsWith(prefix)) listener(strip(m));
      }),
    close: () => inner.close(),
  };
}
