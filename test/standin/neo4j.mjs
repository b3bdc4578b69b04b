// A Neo4j stand-in speaking Bolt over TCP (Node, vitest globalSetup) for the Neo4j graph node and
// graphCypherQAChain: the handshake (the main port agrees on 5.4, the legacy port on 4.4), HELLO and
// LOGON (5.1+) or HELLO with the credentials (4.4), RUN/PULL {n:-1}, RESET, GOODBYE, chunked
// PackStream v1 both ways. Any username logs in with NEO4J_PASSWORD (else Neo4j's Unauthorized
// FAILURE and the connection closed); the username is the test's marker: every RUN is recorded
// under it ({query, parameters, db, tx_timeout, bolt}; a FLOAT parameter recorded as {$float: x}).
// RUN is answered by rules: LangChain's apoc.meta.data() queries → a fixed movie schema (a user
// containing "noapoc" gets ProcedureNotFound), apoc.meta.graphSample() and the enhanced-schema
// samples → fixed counts and values, anything else → the script the test PUT for its user:
// {fields, records} or {failure: {code, message}} (no script: no records). In a script's values
// {$node: {labels, properties}}, {$rel: {type, properties}}, {$path: [node, rel, node, …]},
// {$int: "digits"} and {$float: x} become Bolt's structures and types.
// HTTP side: PUT /script/<user> (JSON), GET /runs/<user> (what was run, oldest first).
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";

export const NEO4J_PASSWORD = "neo4j-standin-password";

// --- PackStream v1 -----------------------------------------------------------------------------
class Struct {
  constructor(tag, fields) {
    this.tag = tag;
    this.fields = fields;
  }
}

function sized(n, tiny, m8) {
  if (tiny !== undefined && n < 16) return Buffer.from([tiny + n]);
  if (n < 0x100) return Buffer.from([m8, n]);
  if (n < 0x10000) return Buffer.from([m8 + 1, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = m8 + 2;
  b.writeUInt32BE(n, 1);
  return b;
}

function packInt(n) {
  const v = BigInt(n);
  if (v >= -16n && v < 128n) return Buffer.from([Number(v) & 0xff]);
  const b = Buffer.alloc(9);
  b[0] = 0xcb;
  b.writeBigInt64BE(v, 1);
  return b;
}

function pack(v) {
  if (v === null || v === undefined) return Buffer.from([0xc0]);
  if (v === true || v === false) return Buffer.from([v ? 0xc3 : 0xc2]);
  if (typeof v === "bigint") return packInt(v);
  if (typeof v === "number") {
    if (Number.isInteger(v)) return packInt(v);
    const b = Buffer.alloc(9);
    b[0] = 0xc1;
    b.writeDoubleBE(v, 1);
    return b;
  }
  if (typeof v === "object" && "__float" in v) {
    const b = Buffer.alloc(9);
    b[0] = 0xc1;
    b.writeDoubleBE(v.__float, 1);
    return b;
  }
  if (typeof v === "string") {
    const s = Buffer.from(v, "utf8");
    return Buffer.concat([sized(s.length, 0x80, 0xd0), s]);
  }
  if (v instanceof Struct) return Buffer.concat([Buffer.from([0xb0 + v.fields.length, v.tag]), ...v.fields.map(pack)]);
  if (Array.isArray(v)) return Buffer.concat([sized(v.length, 0x90, 0xd4), ...v.map(pack)]);
  const entries = Object.entries(v);
  return Buffer.concat([sized(entries.length, 0xa0, 0xd8), ...entries.flatMap(([k, x]) => [pack(k), pack(x)])]);
}

function unpack(buf, at = { i: 0 }) {
  const m = buf[at.i++];
  const u = (n) => {
    const v = n === 1 ? buf[at.i] : n === 2 ? buf.readUInt16BE(at.i) : buf.readUInt32BE(at.i);
    at.i += n;
    return v;
  };
  const str = (n) => buf.toString("utf8", at.i, (at.i += n));
  const list = (n) => Array.from({ length: n }, () => unpack(buf, at));
  const map = (n) => Object.fromEntries(Array.from({ length: n }, () => [unpack(buf, at), unpack(buf, at)]));
  if (m < 0x80) return m;
  if (m >= 0xf0) return m - 0x100;
  const hi = m & 0xf0;
  if (hi === 0x80) return str(m & 0x0f);
  if (hi === 0x90) return list(m & 0x0f);
  if (hi === 0xa0) return map(m & 0x0f);
  if (hi === 0xb0) {
    const tag = buf[at.i++];
    return new Struct(tag, list(m & 0x0f));
  }
  const ints = { 200: ["readInt8", 1], 201: ["readInt16BE", 2], 202: ["readInt32BE", 4] };
  if (ints[m]) {
    const [fn, n] = ints[m];
    const v = buf[fn](at.i);
    at.i += n;
    return v;
  }
  switch (m) {
    case 0xc0:
      return null;
    case 0xc1: {
      const v = buf.readDoubleBE(at.i);
      at.i += 8;
      return { $float: v };
    }
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xcb: {
      const v = buf.readBigInt64BE(at.i);
      at.i += 8;
      return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
      return str(u(1 << (m - 0xd0)));
    case 0xd4:
    case 0xd5:
    case 0xd6:
      return list(u(1 << (m - 0xd4)));
    case 0xd8:
    case 0xd9:
    case 0xda:
      return map(u(1 << (m - 0xd8)));
  }
  throw new Error(`marker 0x${m.toString(16)}`);
}

/** A message in chunks (the stand-in's are small: one chunk). */
const message = (tag, ...fields) => {
  const body = pack(new Struct(tag, fields));
  const head = Buffer.alloc(2);
  head.writeUInt16BE(body.length);
  return Buffer.concat([head, body, Buffer.from([0, 0])]);
};
const SUCCESS = (meta = {}) => message(0x70, meta);
const RECORD = (values) => message(0x71, values);
const IGNORED = () => message(0x7e);
const FAILURE = (code, msg) => message(0x7f, { code, message: msg });

// --- Values of scripts -------------------------------------------------------------------------
let ids = 0;
function value(v, v5) {
  if (Array.isArray(v)) return v.map((x) => value(x, v5));
  if (!v || typeof v !== "object") return v;
  if ("$int" in v) return BigInt(v.$int);
  if ("$float" in v) return { __float: v.$float };
  if ("$node" in v) return node(v.$node, v5);
  if ("$rel" in v) {
    const id = ++ids;
    const f = [id, 1, 2, v.$rel.type, value(v.$rel.properties ?? {}, v5)];
    return new Struct(0x52, v5 ? [...f, `5:r:${id}`, "5:n:1", "5:n:2"] : f);
  }
  if ("$path" in v) {
    const items = v.$path;
    const nodes = items.filter((_, i) => i % 2 === 0).map((n) => node(n.$node, v5));
    const rels = items
      .filter((_, i) => i % 2 === 1)
      .map((r, i) => {
        const f = [i, r.$rel.type, value(r.$rel.properties ?? {}, v5)];
        return new Struct(0x72, v5 ? [...f, `5:r:${i}`] : f);
      });
    const seq = rels.flatMap((_, i) => [i + 1, i + 1]);
    return new Struct(0x50, [nodes, rels, seq]);
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, value(x, v5)]));
}
function node(n, v5) {
  const id = ++ids;
  const f = [id, n.labels ?? [], value(n.properties ?? {}, v5)];
  return new Struct(0x4e, v5 ? [...f, `5:n:${id}`] : f);
}
// --- The fixed schema --------------------------------------------------------------------------
const NODE_PROPS = [
  {
    labels: "Person",
    properties: [
      { property: "name", type: "STRING" },
      { property: "born", type: "INTEGER" },
    ],
  },
  {
    labels: "Movie",
    properties: [
      { property: "title", type: "STRING" },
      { property: "released", type: "INTEGER" },
    ],
  },
];
const REL_PROPS = [{ type: "ACTED_IN", properties: [{ property: "roles", type: "LIST" }] }];
const RELS = [
  { start: "Person", type: "ACTED_IN", end: "Movie" },
  { start: "Person", type: "DIRECTED", end: "Movie" },
];
const SAMPLES = {
  Person: {
    name: { values: ["Keanu Reeves", "Carrie-Anne Moss", "Lana Wachowski"], distinct_count: 3 },
    born: { min: "1956", max: "1967", distinct_count: 3 },
  },
  Movie: {
    title: { values: ["The Matrix", "The Matrix Reloaded"], distinct_count: 2 },
    released: { min: "1999", max: "2003", distinct_count: 2 },
  },
  ACTED_IN: { roles: { min_size: 1, max_size: 2 } },
};

function answer(user, query, parameters) {
  if (query.includes("apoc.meta.data()")) {
    if (user.includes("noapoc"))
      return {
        failure: {
          code: "Neo.ClientError.Procedure.ProcedureNotFound",
          message: "There is no procedure with the name `apoc.meta.data` registered",
        },
      };
    const excluded = parameters.EXCLUDED_LABELS ?? [];
    if (!Array.isArray(excluded))
      return { failure: { code: "Neo.ClientError.Statement.ParameterMissing", message: "Expected parameter(s): EXCLUDED_LABELS" } };
    if (query.includes('elementType = "relationship"')) return { fields: ["output"], records: REL_PROPS.map((o) => [o]) };
    if (query.includes("UNWIND other AS other_node")) return { fields: ["output"], records: RELS.map((o) => [o]) };
    return { fields: ["output"], records: NODE_PROPS.map((o) => [o]) };
  }
  if (query.includes("apoc.meta.graphSample()"))
    return {
      fields: ["nodes", "relationships"],
      records: [
        [
          [
            { name: "Person", count: 3 },
            { name: "Movie", count: 2 },
          ],
          [{ name: "ACTED_IN", count: 3 }],
        ],
      ],
    };
  const sampled = /^MATCH (?:\(n:`(\w+)`\)|\(\)-\[n:`(\w+)`\]->\(\))/.exec(query);
  if (sampled && query.includes("AS output")) return { fields: ["output"], records: [[SAMPLES[sampled[1] ?? sampled[2]] ?? {}]] };
  return scripts.get(user) ?? { fields: [], records: [] };
}

const scripts = new Map();
const runs = new Map();

function serve(socket, version) {
  const [major, minor] = version;
  const v5 = major >= 5;
  let buf = Buffer.alloc(0);
  let shaken = false;
  let user;
  let failed = false;
  let pending;
  const send = (b) => socket.write(b);
  const onMessage = (m) => {
    const [a, b, c] = m.fields;
    if (m.tag === 0x01) {
      // HELLO
      if (major === 5 && minor >= 1) return send(SUCCESS({ server: "Neo4j/5.20.0", connection_id: "bolt-1" }));
      return login(a);
    }
    if (m.tag === 0x6a) return login(a); // LOGON
    if (m.tag === 0x02) return socket.end(); // GOODBYE
    if (m.tag === 0x0f) {
      failed = false;
      return send(SUCCESS());
    }
    if (failed) return send(IGNORED());
    if (m.tag === 0x10) {
      const entry = { query: a, parameters: b, db: c.db ?? null, tx_timeout: c.tx_timeout ?? null, bolt: `${major}.${minor}` };
      if (!runs.has(user)) runs.set(user, []);
      runs.get(user).push(entry);
      pending = answer(user, a, b);
      if (pending.failure) {
        failed = true;
        return send(FAILURE(pending.failure.code, pending.failure.message));
      }
      return send(SUCCESS({ fields: pending.fields, t_first: 1 }));
    }
    if (m.tag === 0x3f) {
      const out = (pending?.records ?? []).map((r) => RECORD(value(r, v5)));
      pending = undefined;
      return send(Buffer.concat([...out, SUCCESS({ type: "r", t_last: 1, db: "neo4j" })]));
    }
    return send(FAILURE("Neo.ClientError.Request.Invalid", `the stand-in does not know message 0x${m.tag.toString(16)}`));
  };
  const login = (auth) => {
    if (auth.credentials !== NEO4J_PASSWORD || auth.scheme !== "basic") {
      send(FAILURE("Neo.ClientError.Security.Unauthorized", "The client is unauthorized due to authentication failure."));
      return socket.end();
    }
    user = auth.principal;
    send(SUCCESS({ server: "Neo4j/5.20.0", connection_id: "bolt-1" }));
  };
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    if (!shaken) {
      if (buf.length < 20) return;
      if (buf.readUInt32BE(0) !== 0x6060b017) return socket.destroy();
      const offered = [4, 8, 12, 16].map((i) => [buf[i + 3], buf[i + 2], buf[i + 1]]);
      const ok = offered.some(([ma, mi, range]) => ma === major && mi >= minor && mi - range <= minor);
      buf = buf.subarray(20);
      shaken = true;
      socket.write(Buffer.from(ok ? [0, 0, minor, major] : [0, 0, 0, 0]));
      if (!ok) return socket.end();
    }
    for (;;) {
      // one whole message: chunks up to a 0-size one
      let at = 0;
      const parts = [];
      let whole = false;
      while (at + 2 <= buf.length) {
        const size = buf.readUInt16BE(at);
        if (size === 0) {
          at += 2;
          whole = true;
          break;
        }
        if (at + 2 + size > buf.length) break;
        parts.push(buf.subarray(at + 2, at + 2 + size));
        at += 2 + size;
      }
      if (!whole) return;
      buf = buf.subarray(at);
      if (parts.length) onMessage(unpack(Buffer.concat(parts)));
    }
  });
}

export async function startNeo4jStandin() {
  const sockets = new Set();
  const tcp = (version) =>
    new Promise((resolve) => {
      const server = createServer((socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        serve(socket, version);
      });
      server.listen(0, "127.0.0.1", () => resolve(server));
    });
  const main = await tcp([5, 4]);
  const legacy = await tcp([4, 4]);
  const http = createHttpServer(async (req, res) => {
    let body = "";
    for await (const c of req) body += c;
    const [, kind, user] = decodeURI(req.url ?? "").split("/");
    if (req.method === "PUT" && kind === "script") {
      scripts.set(user, JSON.parse(body));
      res.writeHead(204);
      return res.end();
    }
    if (req.method === "GET" && kind === "runs") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(runs.get(user) ?? []));
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${http.address().port}`,
    boltUrl: `neo4j://127.0.0.1:${main.address().port}`,
    legacyBoltUrl: `bolt://127.0.0.1:${legacy.address().port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([main, legacy, http].map((s) => new Promise((r) => s.close(() => r()))));
    },
  };
}
