/**
 * A config entry that cannot run stops start-up, naming the entry and why, instead of an engine that silently does
 * less than its config says (run.ts, `refuseUnavailable`). The config kit refuses a class it does not know; an
 * entry of a class this build has no module for (a config written for a later release, handed to `runSvc` as
 * resolved) is refused here, before anything listens.
 */
import { parseConfigText } from '@svc/config';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { runSvc } from '../src/run.js';

describe('runSvc', () => {
  it('refuses to start with an entry this build cannot run, naming it and why', async () => {
    const { config } = parseConfigText('port: 0\nhost: 127.0.0.1\nmodules: []\n', 'test.yaml', {});
    const later = { ...config, modules: [{ class: 'modules::later::LaterModule', config: {} }] };
    await expect(runSvc(later as unknown as typeof config, { logger: pino({ level: 'silent' }) })).rejects.toThrow(
      'config entries that cannot run: modules[0] (modules::later::LaterModule): this build has no module of this class; ' +
        'remove the entry to start',
    );
  });
});
