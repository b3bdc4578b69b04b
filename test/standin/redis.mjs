// Redis stand-ins sharing one in-memory keyspace of lists:
//   a RESP server over TCP (redis://127.0.0.1:PORT) answering AUTH (password "stand-in-pass", any
//     user), SELECT, PING, LPUSH, RPUSH, LRANGE, EXPIRE, TTL, DEL, GET, SET [PX ms], QUIT; -NOAUTH for a client that
//     sends no password to a key under "secret:"; a key starting "hang:" is never answered;
//   Upstash's REST API over HTTP: POST /pipeline and POST / with commands as JSON arrays, the REST
//     token ("upstash-token") as a bearer token; a key starting "fail:" answers 500.
// Refused as the real services refuse them (validateCommand, validateUpstash):
//   Redis (redis.io command reference): a wrong argument count ("ERR wrong number of arguments for 'lpush' command"),
//     a non-integer LRANGE index or EXPIRE seconds ("ERR value is not an integer or out of range"), a list command on
//     a string key or GET on a list ("WRONGTYPE Operation against a key holding the wrong kind of value"); and
//     EXPIRE with a timeout of zero or less deletes the key, as Redis does;
//   Upstash (upstash.com/docs/redis/troubleshooting): a request over 10 MB ("ERR max request size exceeded", the
//     Free and Pay-as-you-go limit), a key over 32 KB ("ERR max key size exceeded. Limit: …, Actual: …"), and
//     a body that is not a command (a JSON array of strings) or, for /pipeline, an array of them.
// GET /commands on the HTTP server lists the TCP commands received ({conn, args}); GET /keys/KEY
// answers {items, ttl} as stored.
import { createServer } from "node:net";
import { serveStandin } from "./base.mjs";

export const REDIS_PASSWORD = "stand-in-pass";
export const UPSTASH_TOKEN = "upstash-token";
const lists = new Map();
const strings = new Map();
const ttls = new Map();
const commands = [];

// Each command's argument count as Redis checks it, the name included: exact n, or at least -n.
const ARITY = { LPUSH: -3, RPUSH: -3, LRANGE: 4, EXPIRE: -3, TTL: 2, DEL: -2, GET: 2, SET: -3 };
const LIST_COMMANDS = new Set(["LPUSH", "RPUSH", "LRANGE"]);
const isInteger = (v) => /^-?\d+$/.test(String(v));

/** Redis's own refusals for a command (an error reply's text), else undefined. */
function validateCommand(cmd, args) {
  const arity = ARITY[cmd];
  if (arity !== undefined && (arity > 0 ? args.length !== arity : args.length < -arity))
    return `ERR wrong number of arguments for '${cmd.toLowerCase()}' command`;
  const numeric = cmd === "LRANGE" ? args.slice(2, 4) : cmd === "EXPIRE" ? [args[2]] : [];
  if (numeric.some((v) => !isInteger(v))) return "ERR value is not an integer or out of range";
  const key = args[1];
  if ((LIST_COMMANDS.has(cmd) && strings.has(key)) || (cmd === "GET" && lists.has(key)))
    return "WRONGTYPE Operation against a key holding the wrong kind of value";
  return undefined;
}

function run(args, conn) {
  const [name, ...rest] = args;
  const cmd = String(name).toUpperCase();
  const key = rest[0];
  const refused = validateCommand(cmd, args);
  if (refused) return { error: refused };
  switch (cmd) {
    case "PING":
      return { simple: "PONG" };
    case "QUIT":
      return { simple: "OK", close: true };
    case "AUTH": {
      const password = rest.at(-1);
      if (password !== REDIS_PASSWORD) return { error: "WRONGPASS invalid username-password pair or user is disabled." };
      conn.authed = true;
      return { simple: "OK" };
    }
    case "SELECT":
      return { simple: "OK" };
    case "LPUSH":
    case "RPUSH": {
      const list = lists.get(key) ?? [];
      for (const v of rest.slice(1)) cmd === "LPUSH" ? list.unshift(v) : list.push(v);
      lists.set(key, list);
      return { value: list.length };
    }
    case "LRANGE": {
      const list = lists.get(key) ?? [];
      let [start, stop] = [Number(rest[1]), Number(rest[2])];
      if (start < 0) start = Math.max(0, list.length + start);
      if (stop < 0) stop = list.length + stop;
      return { value: list.slice(start, stop + 1) };
    }
    case "EXPIRE": {
      const had = lists.has(key) || strings.has(key);
      // Redis: a timeout of zero or less deletes the key at once.
      if (Number(rest[1]) <= 0) {
        lists.delete(key);
        strings.delete(key);
        ttls.delete(key);
      } else ttls.set(key, Number(rest[1]));
      return { value: had ? 1 : 0 };
    }
    case "TTL":
      return { value: ttls.get(key) ?? -1 };
    case "DEL": {
      const had = lists.delete(key);
      ttls.delete(key);
      return { value: had ? 1 : 0 };
    }
    case "GET":
      return { value: strings.get(key) ?? null };
    case "SET": {
      strings.set(key, String(rest[1]));
      const px = rest.findIndex((a) => String(a).toUpperCase() === "PX");
      if (px > 0) ttls.set(key, Math.ceil(Number(rest[px + 1]) / 1000));
      return { simple: "OK" };
    }
    default:
      return { error: `ERR unknown command '${name}'` };
  }
}

const encode = (v) => {
  if (v === null) return "$-1\r\n";
  if (Array.isArray(v)) return `*${v.length}\r\n${v.map(encode).join("")}`;
  if (typeof v === "number") return `:${v}\r\n`;
  return `$${Buffer.byteLength(v)}\r\n${v}\r\n`;
};

/** Parses complete RESP arrays of bulk strings from buf: [commands, rest]. */
function parseCommands(buf) {
  const out = [];
  let at = 0;
  for (;;) {
    const start = at;
    const nl = buf.indexOf("\r\n", at);
    if (nl < 0 || buf[at] !== 0x2a) return [out, buf.subarray(start)];
    const n = Number(buf.subarray(at + 1, nl).toString());
    at = nl + 2;
    const args = [];
    for (let i = 0; i < n; i++) {
      const l = buf.indexOf("\r\n", at);
      if (l < 0) return [out, buf.subarray(start)];
      const len = Number(buf.subarray(at + 1, l).toString());
      if (l + 2 + len + 2 > buf.length) return [out, buf.subarray(start)];
      args.push(buf.subarray(l + 2, l + 2 + len).toString("utf8"));
      at = l + 2 + len + 2;
    }
    out.push(args);
  }
}

function startTcp() {
  let connections = 0;
  const open = new Set();
  const server = createServer((socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    const conn = { id: ++connections, authed: false };
    let buf = Buffer.alloc(0);
    socket.on("error", () => {});
    socket.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const [cmds, rest] = parseCommands(buf);
      buf = rest;
      for (const args of cmds) {
        commands.push({ conn: conn.id, args });
        // A hanging server answers nothing more on this connection (replies keep their order).
        if (String(args[1] ?? "").startsWith("hang:")) conn.hung = true;
        if (conn.hung) continue;
        if (String(args[1] ?? "").startsWith("secret:") && !conn.authed) {
          socket.write("-NOAUTH Authentication required.\r\n");
          continue;
        }
        const r = run(args, conn);
        socket.write(r.error ? `-${r.error}\r\n` : r.simple ? `+${r.simple}\r\n` : encode(r.value));
        if (r.close) return socket.end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        port: server.address().port,
        close: () =>
          new Promise((r) => {
            for (const s of open) s.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

const UPSTASH_MAX_REQUEST_BYTES = 10 * 1024 * 1024;
const UPSTASH_MAX_KEY_BYTES = 32 * 1024;

/** Upstash's refusals for a whole REST request: [status, error] or undefined. */
function validateUpstash(raw, batch) {
  const size = Buffer.byteLength(raw);
  if (size > UPSTASH_MAX_REQUEST_BYTES) return [400, "ERR max request size exceeded"];
  const isCommand = (c) => Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === "string" || typeof a === "number");
  if (!Array.isArray(batch) || !batch.length || !batch.every(isCommand))
    return [400, "ERR failed to parse command: send a JSON array of strings (a pipeline: an array of them)"];
  for (const c of batch) {
    const keyBytes = c.length > 1 ? Buffer.byteLength(String(c[1])) : 0;
    if (keyBytes > UPSTASH_MAX_KEY_BYTES)
      return [400, `ERR max key size exceeded. Limit: ${UPSTASH_MAX_KEY_BYTES} bytes, Actual: ${keyBytes} bytes`];
  }
  return undefined;
}

export async function startRedisStandins() {
  const tcp = await startTcp();
  const http = await serveStandin(async ({ req, url, body, raw, json }) => {
    if (req.method === "GET" && url.pathname === "/commands") return json(200, commands);
    const keyPath = /^\/keys\/(.+)$/.exec(url.pathname);
    if (req.method === "GET" && keyPath) {
      const key = decodeURIComponent(keyPath[1]);
      return json(200, { items: lists.get(key) ?? [], ttl: ttls.get(key) ?? -1 });
    }
    if (req.method !== "POST" || (url.pathname !== "/pipeline" && url.pathname !== "/")) return json(404, { error: "not found" });
    if (req.headers.authorization !== `Bearer ${UPSTASH_TOKEN}`) return json(401, { error: "Unauthorized" });
    const batch = url.pathname === "/" ? [body] : body;
    const refused = validateUpstash(raw, batch);
    if (refused) return json(refused[0], { error: refused[1] });
    if (batch.some((c) => String(c[1] ?? "").startsWith("fail:"))) return json(500, { error: "ERR the stand-in is having a bad day" });
    const replies = batch.map((args) => {
      const r = run(args.map(String), { authed: true });
      return r.error ? { error: r.error } : { result: r.simple ?? r.value };
    });
    return json(200, url.pathname === "/" ? replies[0] : replies);
  });
  return {
    url: http.url,
    redisUrl: `redis://127.0.0.1:${tcp.port}`,
    close: async () => {
      await http.close();
      await tcp.close();
    },
  };
}
