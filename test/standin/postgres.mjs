// A real Postgres (PGlite: Postgres compiled to WebAssembly) speaking the wire protocol on a loopback
// port, for sqlDatabaseChain's Postgres path. Seeded with a small `albums` table. Runs in Node
// (vitest globalSetup). Answers {url, close}; the url carries the stand-in's user and database.
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export async function startPostgresStandin() {
  const db = await PGlite.create();
  await db.exec(`
    CREATE TABLE albums (id integer PRIMARY KEY, title text NOT NULL, artist text NOT NULL, year integer);
    INSERT INTO albums VALUES (1, 'Kind of Blue', 'Miles Davis', 1959), (2, 'Blue Train', 'John Coltrane', 1958),
      (3, 'Giant Steps', 'John Coltrane', 1960), (4, 'Mingus Ah Um', 'Charles Mingus', 1959);
    CREATE SEQUENCE albums_seq;
    CREATE TABLE secrets (id integer PRIMARY KEY, note text);
    INSERT INTO secrets VALUES (1, 'not for the model');
  `);
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 8 });
  await server.start();
  const port = server.getServerConn().split(":").pop();
  return {
    url: `postgres://postgres:standin-pg-password@127.0.0.1:${port}/postgres`,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** A TCP port that accepts connections and never says a word: a database that hangs. */
export async function startSilentTcp() {
  const { createServer } = await import("node:net");
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `postgres://app:pw@127.0.0.1:${server.address().port}/silent`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
