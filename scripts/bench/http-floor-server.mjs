/* global Buffer */
// The floor of the HTTP benchmark: a plain node http server answering the same JSON in one process.
import { createServer } from 'node:http';

const body = JSON.stringify({ hello: 'world', n: 1 });
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
