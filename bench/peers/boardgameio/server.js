// boardgame.io's server for the bench: `node server.js PORT [FLATFILE_DIR]` (in-memory without a dir).
const { Server, FlatFile } = require('boardgame.io/server');
const { TrickGame } = require('./game');

const port = Number(process.argv[2]);
const dir = process.argv[3];
const options = { games: [TrickGame] };
if (dir) options.db = new FlatFile({ dir, logging: false });
const server = Server(options);
// The bench's memory probe: the live heap after a full collection (node --expose-gc).
server.router.get('/bench/heap', (ctx) => {
  if (global.gc) global.gc();
  ctx.body = { heap_used: process.memoryUsage().heapUsed };
});
server.run(port, () => console.log(`ready ${port}`));
