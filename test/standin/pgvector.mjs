// A real Postgres with pgvector (PGlite + @electric-sql/pglite-pgvector) on a loopback port, for the
// postgres vector store. In front of PGlite's socket server sits a small proxy that does what PGlite
// does not: password authentication (cleartext, user "flowise" with password PGV_PASSWORD; any other
// password is 28P01) and a record of what each connection sent (user, database, password, every
// simple or extended query's SQL text). An HTTP side answers GET /requests (the record), GET
// /dump/<table> (its rows, embeddings as numbers) and POST /sql ({sql, params}: seeding a table as
// Flowise would). Runs in Node (vitest globalSetup); answers {url, host, port, close}.
import { createServer as createHttpServer } from "node:http";
import { connect, createServer } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export const PGV_USER = "flowise";
export const PGV_PASSWORD = "pgv-standin-password";

const message = (type, body) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const int32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};
const cstrings = (buf) => buf.toString("utf8").split("\0");
const errorResponse = (code, text) => message("E", Buffer.concat([Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0`), Buffer.from([0])]));

export async function startPgvectorStandin() {
  const db = await PGlite.create({ extensions: { vector } });
  const backend = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 32 });
  await backend.start();
  const backendPort = Number(backend.getServerConn().split(":").pop());
  const requests = [];
  const sockets = new Set();

  const proxy = createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    const record = { user: "", database: "", password: "", statements: [] };
    let buf = Buffer.alloc(0);
    let phase = "startup"; // → password → piped
    let startup;
    let upstream;
    const onData = (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (phase === "startup") {
          if (buf.length < 8) return;
          const len = buf.readInt32BE(0);
          if (buf.length < len) return;
          const code = buf.readInt32BE(4);
          if (code === 80877103) {
            buf = buf.subarray(len);
            client.write("N"); // no TLS here
            continue;
          }
          startup = buf.subarray(0, len);
          buf = buf.subarray(len);
          const parts = cstrings(startup.subarray(8));
          for (let i = 0; i + 1 < parts.length; i += 2) {
            if (parts[i] === "user") record.user = parts[i + 1];
            if (parts[i] === "database") record.database = parts[i + 1];
          }
          requests.push(record);
          phase = "password";
          client.write(message("R", int32(3))); // AuthenticationCleartextPassword
          continue;
        }
        if (buf.length < 5) return;
        const type = String.fromCharCode(buf[0]);
        const len = buf.readInt32BE(1);
        if (buf.length < len + 1) return;
        const msg = buf.subarray(0, len + 1);
        const body = msg.subarray(5);
        buf = buf.subarray(len + 1);
        if (phase === "password") {
          record.password = cstrings(body)[0];
          if (type !== "p" || record.user !== PGV_USER || record.password !== PGV_PASSWORD) {
            client.end(errorResponse("28P01", `password authentication failed for user "${record.user}"`));
            return;
          }
          phase = "piped";
          upstream = connect(backendPort, "127.0.0.1");
          upstream.on("error", () => client.destroy());
          upstream.on("close", () => client.destroy());
          client.on("close", () => upstream.destroy());
          // PGlite answers the startup itself (AuthenticationOk onwards).
          upstream.write(startup);
          upstream.pipe(client);
          continue;
        }
        if (type === "Q") record.statements.push(cstrings(body)[0]);
        if (type === "P") record.statements.push(cstrings(body)[1]);
        upstream.write(msg);
      }
    };
    client.on("data", onData);
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const port = proxy.address().port;

  const http = createHttpServer(async (req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      const url = new URL(req.url, "http://x");
      if (req.method === "GET" && url.pathname === "/requests") return send(200, requests);
      const dump = url.pathname.match(/^\/dump\/([a-z0-9_]+)$/);
      if (req.method === "GET" && dump) {
        const exists = await db.query("SELECT to_regclass($1) AS t", [`public.${dump[1]}`]);
        if (!exists.rows[0].t) return send(200, { rows: [] });
        const { rows } = await db.query(`SELECT id::text AS id, "pageContent", metadata, embedding::text AS embedding FROM "${dump[1]}"`);
        return send(200, { rows: rows.map((r) => ({ ...r, embedding: JSON.parse(r.embedding) })) });
      }
      if (req.method === "POST" && url.pathname === "/sql") {
        let text = "";
        for await (const part of req) text += part;
        const { sql, params } = JSON.parse(text);
        const out = await db.query(sql, params ?? []);
        return send(200, { rows: out.rows });
      }
      send(404, { error: "not found" });
    } catch (err) {
      send(500, { error: String(err?.message ?? err) });
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${http.address().port}`,
    host: "127.0.0.1",
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => proxy.close(resolve));
      await new Promise((resolve) => http.close(resolve));
      await backend.stop();
      await db.close();
    },
  };
}
