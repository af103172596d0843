// A user's worker for the `svc functions / workers / triggers` tests: one function, bound to a named event.
import { registerWorker } from '@svc/sdk';

const client = registerWorker(process.env.SVC_URL, { workerName: 'inventory' });
client.registerFunction('inventory::reserve', async (payload) => ({ reserved: payload }), {
  description: 'Reserve stock for an order',
});
client.registerTrigger({ type: 'subscribe', function_id: 'inventory::reserve', config: { topic: 'orders.created' } });
await client.ready();
console.log('inventory ready');
process.on('SIGTERM', () => void client.shutdown().then(() => process.exit(0)));
