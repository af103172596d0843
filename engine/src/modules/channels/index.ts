/** The data channels module (`engine::channels::*` and the `/ws/channels/…` route). */
import { ChannelsModule, type ChannelsModuleOptions } from './channels-module.js';
import type { EngineModule } from '../module.js';

export {
  ChannelsModule,
  CHANNELS_MODULE,
  CREATE_CHANNEL_FUNCTION,
  REMOVE_CHANNEL_FUNCTION,
  WATCH_CHANNEL_FUNCTION,
} from './channels-module.js';
export type { ChannelsModuleOptions } from './channels-module.js';
export { Channel, type ChannelDirection } from './channel.js';
export { ChannelRegistry, type StreamChannelRef } from './channel-registry.js';

export function createChannelsModule(options: ChannelsModuleOptions = {}): EngineModule {
  return new ChannelsModule(options);
}
