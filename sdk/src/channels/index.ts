export { ChannelReader } from './channel-reader.js';
export { ChannelWriter } from './channel-writer.js';
export {
  createChannel,
  openChannel,
  removeChannel,
  CREATE_CHANNEL_FUNCTION,
  REMOVE_CHANNEL_FUNCTION,
  WATCH_CHANNEL_FUNCTION,
  type Channel,
  type CreateChannelOptions,
} from './create-channel.js';
export {
  ChannelClosedError,
  ChannelDirection,
  channelUrl,
  extractChannelRefs,
  isChannelRef,
  type StreamChannelRef,
} from './refs.js';
