// A user's worker for the `svc trigger` tests: an echo, a function that fails, and one that never answers in time.
import { clearTimeout, setTimeout } from 'node:timers';
import { registerWorker } from '@svc/sdk';

const client = registerWorker(process.env.SVC_URL, { workerName: 'cli-test-worker' });
client.registerFunction('clitest::echo', async (payload) => ({ received: payload }));
client.registerFunction('clitest::fail', async () => {
  throw new Error('out of stock');
});
client.registerFunction('clitest::slow', async (_payload, ctx) => {
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return 'too late';
});
await client.ready();
console.log('cli-test-worker ready');
process.on('SIGTERM', () => void client.shutdown().then(() => process.exit(0)));
