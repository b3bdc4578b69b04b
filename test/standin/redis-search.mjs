// A small Redis Stack stand-in (RESP2 over TCP, binary-safe bulk strings) for the redis vector
// store: AUTH (password REDIS_SEARCH_PASSWORD), SELECT, PING, QUIT, HSET, EXISTS, DEL, and
// RediSearch's FT.CREATE (ON HASH PREFIX … SCHEMA with one VECTOR field: FLOAT32, DIM,
// DISTANCE_METRIC COSINE | L2 | IP, and TEXT fields), FT.INFO, FT.DROPINDEX and FT.SEARCH with
// `<filter> => [KNN k @field $vector AS score]` PARAMS, RETURN, SORTBY, LIMIT, DIALECT 2; KNN is
// computed over every hash under the index's prefix (as an index re-scans its prefix). Index
// "down" answers every FT command with an error. Its own keyspace (nothing shared with redis.mjs).
// Refused as RediSearch refuses them: a schema naming a field twice ("Duplicate field in schema"), a
// query whose @field is not a term of the DIALECT 2 lexer (a "." in it: "Syntax error at offset …"),
// KNN without DIALECT 2, a query vector blob that is not DIM × 4 bytes; a hash whose vector blob is of
// another size is not indexed.
// HTTP side: GET /requests (commands received, byte arguments as {bytes: n}), GET /dump/<index>.
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";

export const REDIS_SEARCH_PASSWORD = "redis-search-password";

const CRLF = Buffer.from("\r\n");
const simple = (s) => Buffer.from(`+${s}\r\n`);
const error = (s) => Buffer.from(`-${s}\r\n`);
const integer = (n) => Buffer.from(`:${n}\r\n`);
const bulk = (b) => (b === null ? Buffer.from("$-1\r\n") : Buffer.concat([Buffer.from(`$${b.length}\r\n`), Buffer.from(b), CRLF]));
const array = (items) => Buffer.concat([Buffer.from(`*${items.length}\r\n`), ...items]);

/** Complete commands at the front of `buf` (arrays of bulk strings, as Buffers), and what is left. */
function parseCommands(buf) {
  const out = [];
  let at = 0;
  for (;;) {
    if (at >= buf.length || buf[at] !== 42) break; // '*'
    const eol = buf.indexOf(CRLF, at);
    if (eol < 0) break;
    const n = Number(buf.subarray(at + 1, eol).toString());
    let p = eol + 2;
    const args = [];
    for (let i = 0; i < n; i++) {
      const e = buf.indexOf(CRLF, p);
      if (e < 0 || buf[p] !== 36) return { out, rest: buf.subarray(at) };
      const len = Number(buf.subarray(p + 1, e).toString());
      if (e + 2 + len + 2 > buf.length) return { out, rest: buf.subarray(at) };
      args.push(Buffer.from(buf.subarray(e + 2, e + 2 + len)));
      p = e + 2 + len + 2;
    }
    if (args.length < n) break;
    out.push(args);
    at = p;
  }
  return { out, rest: buf.subarray(at) };
}

const floats = (b) => Array.from(new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)));
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const DISTANCES = {
  COSINE: (a, b) => 1 - dot(a, b) / (Math.sqrt(dot(a, a) * dot(b, b)) || 1),
  L2: (a, b) => a.reduce((s, x, i) => s + (x - b[i]) ** 2, 0),
  IP: (a, b) => 1 - dot(a, b),
};

// RediSearch's DIALECT 2 query lexer (src/query_parser/v2/lexer.rl): a term is characters other than ASCII
// punctuation, blanks and control characters (but "_"), or a backslash-escaped one; "@" and a term name a field.
const TERM = /^(?:[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]|_|\\[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e])+/;
const syntaxError = (query, at) => {
  const near = query.slice(at).replace(/^[\s\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+/, "");
  return { error: `Syntax error at offset ${query.length - near.length} near ${near.split(/[\s\]]/)[0]}` };
};

/**
 * A hybrid query as LangChain writes it, `<filter> => [KNN <k> @<field> $<param> AS <alias>]`, its filter `*` or
 * `@<field>:(<terms>)`: its parts, or the syntax error RediSearch answers (a field name holding a "." is read as
 * the field's name, then punctuation, then a term where the KNN clause wants its $parameter).
 */
function parseKnnQuery(query) {
  const arrow = query.indexOf("=>");
  if (arrow < 0) return syntaxError(query, query.length);
  const filter = query.slice(0, arrow).trim();
  const fm = filter.match(/^@([^:]*):\((.*)\)$/);
  if (filter !== "*" && (!fm || fm[1].match(TERM)?.[0] !== fm[1]))
    return syntaxError(query, fm ? 1 + (fm[1].match(TERM)?.[0].length ?? 0) : 0);
  const start = query.indexOf("[KNN ", arrow);
  const head = start < 0 ? null : query.slice(start).match(/^\[KNN (\d+) @/);
  if (!head) return syntaxError(query, arrow + 2);
  const fieldAt = start + head[0].length;
  const field = query.slice(fieldAt).match(TERM)?.[0] ?? "";
  const tail = query.slice(fieldAt + field.length).match(/^ \$(\w+) AS (\w+)\]$/);
  if (!field || !tail) return syntaxError(query, fieldAt + field.length);
  return { filter, fm, k: Number(head[1]), field, param: tail[1], scoreField: tail[2] };
}

export async function startRedisSearchStandin() {
  const hashes = new Map(); // key → Map(field → Buffer)
  const indexes = new Map(); // name → {prefix, vectorField, dim, metric, fields}
  const requests = [];
  const sockets = new Set();

  const ft = {
    "FT.CREATE"(a) {
      const name = a[0];
      if (indexes.has(name)) return error("Index already exists");
      const up = a.map((x) => x.toUpperCase());
      const prefix = up.includes("PREFIX") ? a[up.indexOf("PREFIX") + 2] : "";
      const schema = a.slice(up.indexOf("SCHEMA") + 1);
      const index = { prefix, fields: [] };
      for (let i = 0; i < schema.length; ) {
        const field = schema[i];
        const type = schema[i + 1].toUpperCase();
        if (index.fields.includes(field)) return error(`Duplicate field in schema - ${field}`);
        index.fields.push(field);
        if (type === "VECTOR") {
          const nargs = Number(schema[i + 3]);
          const attrs = schema.slice(i + 4, i + 4 + nargs);
          const attr = (k) => attrs[attrs.findIndex((x) => x.toUpperCase() === k) + 1];
          if (attr("TYPE") !== "FLOAT32") return error("Bad arguments for vector similarity: only FLOAT32 here");
          Object.assign(index, { vectorField: field, dim: Number(attr("DIM")), metric: attr("DISTANCE_METRIC").toUpperCase() });
          i += 4 + nargs;
        } else i += 2;
      }
      if (!index.vectorField || !DISTANCES[index.metric]) return error("Bad arguments for vector similarity");
      indexes.set(name, index);
      return simple("OK");
    },
    "FT.INFO"(a) {
      const index = indexes.get(a[0]);
      if (!index) return error("Unknown index name");
      const docs = [...hashes.keys()].filter((k) => k.startsWith(index.prefix)).length;
      return array([bulk("index_name"), bulk(a[0]), bulk("num_docs"), bulk(String(docs))]);
    },
    "FT.DROPINDEX"(a) {
      const index = indexes.get(a[0]);
      if (!index) return error("Unknown Index name");
      indexes.delete(a[0]);
      if (a[1]?.toUpperCase() === "DD") for (const k of [...hashes.keys()]) if (k.startsWith(index.prefix)) hashes.delete(k);
      return simple("OK");
    },
    "FT.SEARCH"(a, raw) {
      const index = indexes.get(a[0]);
      if (!index) return error(`${a[0]}: no such index`);
      const parsed = parseKnnQuery(a[1]);
      if (parsed.error) return error(parsed.error);
      const { fm, k, field, param, scoreField } = parsed;
      if (field !== index.vectorField) return error(`Unknown field \`${field}\``);
      const up = a.map((x) => x.toUpperCase());
      if (!up.includes("DIALECT") || a[up.indexOf("DIALECT") + 1] !== "2") return error("KNN queries need DIALECT 2");
      const pi = up.indexOf("PARAMS");
      const params = {};
      for (let i = pi + 2; i < pi + 2 + Number(a[pi + 1]); i += 2) params[a[i]] = raw[i + 1];
      if (!params[param]) return error(`No such parameter \`${param}\``);
      const query = floats(params[param]);
      if (query.length !== index.dim)
        return error(
          `Error parsing vector similarity query: query vector blob size (${params[param].length}) does not match index's expected size (${index.dim * 4}).`,
        );
      const ri = up.indexOf("RETURN");
      const fields = ri >= 0 ? a.slice(ri + 2, ri + 2 + Number(a[ri + 1])) : null;
      const li = up.indexOf("LIMIT");
      const [offset, size] = li >= 0 ? [Number(a[li + 1]), Number(a[li + 2])] : [0, 10];
      // `*`, or `@field:(a|b)`: a text field holding one of the terms.
      const terms = fm ? fm[2].split("|").map((t) => t.replace(/\\(.)/g, "$1").toLowerCase()) : null;
      const hits = [];
      for (const [key, h] of hashes) {
        if (!key.startsWith(index.prefix) || !h.has(field)) continue;
        const v = floats(h.get(field));
        if (v.length !== index.dim) continue; // not indexed: a vector of another size
        if (terms) {
          const text = (h.get(fm[1]) ?? Buffer.alloc(0)).toString().replace(/\\(.)/g, "$1").toLowerCase();
          if (!terms.some((t) => text.includes(t))) continue;
        }
        hits.push({ key, h, score: DISTANCES[index.metric](query, v) });
      }
      hits.sort((x, y) => x.score - y.score);
      const top = hits.slice(0, Number(k)).slice(offset, offset + size);
      const out = [integer(Math.min(hits.length, Number(k)))];
      for (const { key, h, score } of top) {
        const pairs = [];
        for (const f of fields ?? [...h.keys(), scoreField]) {
          if (f === scoreField) pairs.push(bulk(f), bulk(String(score)));
          else if (h.has(f)) pairs.push(bulk(f), bulk(h.get(f)));
        }
        out.push(bulk(key), array(pairs));
      }
      return array(out);
    },
  };

  const run = (conn, raw) => {
    const a = raw.map((b) => b.toString());
    const cmd = a[0].toUpperCase();
    requests.push({
      command: cmd,
      args: raw
        .slice(1)
        .map((b, i) =>
          cmd === "AUTH"
            ? "***"
            : /[\0-\x08\x0e-\x1f\x80-\xff]/.test(b.toString("latin1")) && (cmd === "HSET" || cmd === "FT.SEARCH") && i > 0
              ? { bytes: b.length }
              : b.toString(),
        ),
      user: conn.user,
    });
    if (cmd === "AUTH") {
      const password = a[a.length - 1];
      if (password !== REDIS_SEARCH_PASSWORD) return error("WRONGPASS invalid username-password pair or user is disabled.");
      conn.authed = true;
      conn.user = a.length === 3 ? a[1] : "default";
      return simple("OK");
    }
    if (cmd === "QUIT") return simple("OK");
    if (!conn.authed) return error("NOAUTH Authentication required.");
    if (cmd === "PING") return simple("PONG");
    if (cmd === "SELECT") return simple("OK");
    if (cmd.startsWith("FT.")) {
      if (a[1] === "down") return error("ERR the shard is having a bad day");
      if (!ft[cmd]) return error(`ERR unknown command '${a[0]}'`);
      return ft[cmd](a.slice(1), raw.slice(1));
    }
    if (cmd === "HSET") {
      const h = hashes.get(a[1]) ?? new Map();
      let added = 0;
      for (let i = 2; i + 1 < raw.length; i += 2) {
        if (!h.has(a[i])) added++;
        h.set(a[i], raw[i + 1]);
      }
      hashes.set(a[1], h);
      return integer(added);
    }
    if (cmd === "EXISTS") return integer(a.slice(1).filter((k) => hashes.has(k)).length);
    if (cmd === "DEL") return integer(a.slice(1).filter((k) => hashes.delete(k)).length);
    return error(`ERR unknown command '${a[0]}'`);
  };

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const conn = { authed: false, user: "" };
    let buf = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const { out, rest } = parseCommands(buf);
      buf = Buffer.from(rest);
      for (const raw of out) {
        socket.write(run(conn, raw));
        if (raw[0].toString().toUpperCase() === "QUIT") socket.end();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

  const http = createHttpServer((req, res) => {
    const send = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const dump = req.url.match(/^\/dump\/([^/?]+)$/);
    if (req.url === "/requests") return send(200, requests);
    if (dump) {
      const index = indexes.get(decodeURIComponent(dump[1]));
      const prefix = index?.prefix ?? `doc:${decodeURIComponent(dump[1])}:`;
      const docs = [...hashes]
        .filter(([k]) => k.startsWith(prefix))
        .map(([key, h]) => ({
          key,
          fields: Object.fromEntries([...h].map(([f, v]) => [f, f === index?.vectorField ? floats(v) : v.toString()])),
        }));
      return send(200, { index: index ? { ...index } : null, docs });
    }
    send(404, { error: "not found" });
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${http.address().port}`,
    redisUrl: `redis://127.0.0.1:${server.address().port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
