// A MySQL server on a loopback port, for sqlDatabaseChain's MySQL path and the singlestore vector
// store. It speaks the wire protocol itself — the v10 handshake (advertising caching_sha2_password,
// as MySQL 8 does), both authentication plugins really verified for its users (mysql_native_password
// through an auth switch; caching_sha2_password's full authentication with its RSA public key on a
// plain connection the first time a user signs in, the fast path afterwards), COM_QUERY with text
// result sets (CLIENT_DEPRECATE_EOF honoured or EOF packets sent), ERR packets with MySQL's numbers,
// COM_QUIT — and keeps the data in a real SQL engine: PGlite (Postgres in WebAssembly; this Node has
// no node:sqlite), one schema per database. Statements are translated only as far as the tests' SQL
// needs: quoting (backticks, MySQL's backslash-escaped strings), LangChain's CREATE TABLE column
// options, ON DUPLICATE KEY UPDATE, and SingleStore's vector functions (JSON_ARRAY_PACK keeps the
// vector as a JSON array here; DOT_PRODUCT, EUCLIDEAN_DISTANCE, JSON_EXTRACT_JSON) as SQL functions.
// START TRANSACTION READ ONLY makes the connection's statements run in read-only transactions.
// HTTP side: GET /requests (each connection: user, database, plugin, how it authenticated, its
// statements), GET /dump/<database>/<table>, POST /sql {database, sql} (MySQL SQL, to seed a table).
import { createHash, generateKeyPairSync, privateDecrypt, randomBytes, constants } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { PGlite } from "@electric-sql/pglite";

export const MYSQL_USERS = {
  flowise: { password: "mysql-standin-password", plugin: "mysql_native_password" },
  analyst: { password: "sha2-standin-password", plugin: "caching_sha2_password" },
};
const DATABASES = ["shop", "vectors"];
const CAPS = 0x1 | 0x4 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000 | 0x200000 | 0x1000000;

const sha = (alg, ...parts) => createHash(alg).update(Buffer.concat(parts)).digest();
const xor = (a, b) => Buffer.from(a.map((v, i) => v ^ b[i % b.length]));
const lenenc = (n) => {
  if (n < 251) return Buffer.from([n]);
  if (n < 0x10000) return Buffer.from([0xfc, n & 0xff, n >> 8]);
  if (n < 0x1000000) return Buffer.from([0xfd, n & 0xff, (n >> 8) & 0xff, n >> 16]);
  const b = Buffer.alloc(9);
  b[0] = 0xfe;
  b.writeBigUInt64LE(BigInt(n), 1);
  return b;
};
const lenencStr = (s) => {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(String(s));
  return Buffer.concat([lenenc(b.length), b]);
};
const int = (n, bytes) => {
  const b = Buffer.alloc(bytes);
  b.writeUIntLE(n, 0, bytes);
  return b;
};
const ok = (status = 0x2, header = 0x00, affected = 0) =>
  Buffer.concat([Buffer.from([header]), lenenc(affected), lenenc(0), int(status, 2), int(0, 2)]);
const err = (errno, state, message) => Buffer.concat([Buffer.from([0xff]), int(errno, 2), Buffer.from(`#${state}${message}`)]);
/** A scramble of 20 printable bytes (no NUL). */
const scramble = () => Buffer.from([...randomBytes(20)].map((b) => 0x21 + (b % 90)));

// MySQL SQL → Postgres SQL, token by token (strings, backticks and comments kept apart from words).
function translate(sql) {
  let out = "";
  for (let i = 0; i < sql.length; ) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      let value = "";
      let j = i + 1;
      for (; j < sql.length; j++) {
        if (sql[j] === "\\") {
          const e = sql[++j];
          value += { n: "\n", r: "\r", t: "\t", 0: "\0", Z: "\x1a", b: "\b" }[e] ?? e;
        } else if (sql[j] === c && sql[j + 1] === c) value += sql[j++];
        else if (sql[j] === c) break;
        else value += sql[j];
      }
      out += `E'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
      i = j + 1;
    } else if (c === "`") {
      const j = sql.indexOf("`", i + 1);
      out += `"${sql.slice(i + 1, j).replace(/"/g, '""')}"`;
      i = j + 1;
    } else out += sql[i++];
  }
  if (/^\s*CREATE\s+TABLE/i.test(out))
    out = out
      .replace(/\bCHARACTER SET \w+|\bCOLLATE \w+/gi, "")
      .replace(/\bBIGINT AUTO_INCREMENT\b/gi, "BIGSERIAL")
      .replace(/\bLONGTEXT\b/gi, "TEXT")
      .replace(/\bBLOB\b|\bJSON\b/gi, "JSONB");
  const dup = /\bON DUPLICATE KEY UPDATE\b([\s\S]*)$/i.exec(out);
  if (dup) {
    const key = /INSERT\s+INTO\s+\S+\s*\(\s*("?\w+"?)/i.exec(out)?.[1] ?? "id";
    out = `${out.slice(0, dup.index)}ON CONFLICT (${key}) DO UPDATE SET${dup[1].replace(/\bVALUES\s*\(\s*("?\w+"?)\s*\)/gi, "EXCLUDED.$1")}`;
  }
  return out;
}

const FUNCTIONS = `
CREATE FUNCTION json_array_pack(t text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT t::jsonb $$;
CREATE FUNCTION json_array_unpack(v jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT v $$;
CREATE FUNCTION dot_product(a jsonb, b jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT sum(x.v::float8 * y.v::float8) FROM jsonb_array_elements_text(a) WITH ORDINALITY x(v, i)
  JOIN jsonb_array_elements_text(b) WITH ORDINALITY y(v, i) USING (i) $$;
CREATE FUNCTION euclidean_distance(a jsonb, b jsonb) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
  SELECT sqrt(sum((x.v::float8 - y.v::float8) ^ 2)) FROM jsonb_array_elements_text(a) WITH ORDINALITY x(v, i)
  JOIN jsonb_array_elements_text(b) WITH ORDINALITY y(v, i) USING (i) $$;
CREATE FUNCTION json_extract_json(j jsonb, VARIADIC k text[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$ SELECT j #> k $$;
`;

// Postgres type → [MySQL type, charset]: integers, floating point, DECIMAL, JSON (binary), BLOB, text.
const TYPES = {
  16: [1, 63],
  21: [2, 63],
  23: [3, 63],
  20: [8, 63],
  700: [5, 63],
  701: [5, 63],
  1700: [246, 63],
  114: [245, 63],
  3802: [245, 63],
  17: [252, 63],
};
// Every value as Postgres's text, as MySQL's text protocol sends it.
const RAW = Object.fromEntries(
  [16, 17, 20, 21, 23, 26, 114, 700, 701, 1082, 1083, 1114, 1184, 1186, 1700, 3802].map((oid) => [oid, (t) => t]),
);
const ERRORS = {
  25006: [1792, "25006", () => "Cannot execute statement in a READ ONLY transaction."],
  "42P01": [1146, "42S02", (m) => m.replace(/^relation "(.*)" does not exist$/, "Table '$1' doesn't exist")],
  42703: [1054, "42S22", (m) => m.replace(/^column "?(.*?)"? does not exist$/, "Unknown column '$1' in 'field list'")],
  42601: [1064, "42000", (m) => `You have an error in your SQL syntax: ${m}`],
};

export async function startMysqlStandin() {
  const db = await PGlite.create();
  await db.exec(`${DATABASES.map((d) => `CREATE SCHEMA "${d}";`).join("")}${FUNCTIONS}
    CREATE TABLE shop.albums (id integer PRIMARY KEY, title text NOT NULL, artist text NOT NULL, year integer);
    INSERT INTO shop.albums VALUES (1, 'Kind of Blue', 'Miles Davis', 1959), (2, 'Blue Train', 'John Coltrane', 1958),
      (3, 'Giant Steps', 'John Coltrane', 1960), (4, 'Mingus Ah Um', 'Charles Mingus', 1959);
    CREATE SEQUENCE shop.albums_seq;
    CREATE TABLE shop.secrets (id integer PRIMARY KEY, note text);
    INSERT INTO shop.secrets VALUES (1, 'not for the model');`);
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = publicKey.export({ type: "spki", format: "pem" });
  const signedIn = new Set(); // caching_sha2_password's cache: users whose full authentication succeeded
  const requests = [];
  const sockets = new Set();

  const run = (database, sql, readOnly) =>
    db.transaction(async (tx) => {
      if (readOnly) await tx.query("SET TRANSACTION READ ONLY");
      await tx.query(`SET LOCAL search_path TO "${database}", public`);
      return tx.query(translate(sql), [], { rowMode: "array", parsers: RAW });
    });

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const record = { user: "", database: "", plugin: "", auth: "", statements: [] };
    let buf = Buffer.alloc(0);
    let seq = 0;
    let phase = "response"; // → switched | full | key → command
    let clientCaps = 0;
    let salt = scramble();
    let readOnly = false;
    let queue = Promise.resolve();
    const send = (payload) => {
      socket.write(Buffer.concat([int(payload.length, 3), Buffer.from([seq]), payload]));
      seq = (seq + 1) & 0xff;
    };
    const deny = () => {
      send(err(1045, "28000", `Access denied for user '${record.user}'@'127.0.0.1' (using password: YES)`));
      socket.end();
    };
    const welcome = () => {
      if (record.database && !DATABASES.includes(record.database)) {
        send(err(1049, "42000", `Unknown database '${record.database}'`));
        return socket.end();
      }
      phase = "command";
      send(ok());
    };
    const checkNative = (answer) => {
      const stage1 = sha("sha1", Buffer.from(MYSQL_USERS[record.user].password));
      return answer.equals(xor(stage1, sha("sha1", salt, sha("sha1", stage1))));
    };
    const checkFast = (answer) => {
      const stage1 = sha("sha256", Buffer.from(MYSQL_USERS[record.user].password));
      return answer.equals(xor(stage1, sha("sha256", sha("sha256", stage1), salt)));
    };

    // Handshake v10: protocol 10, version, connection id, scramble in two parts, caps, utf8mb4, status, plugin.
    send(
      Buffer.concat([
        Buffer.from([10]),
        Buffer.from("8.0.36-edgeflow-standin\0"),
        int(7, 4),
        salt.subarray(0, 8),
        Buffer.from([0]),
        int(CAPS & 0xffff, 2),
        Buffer.from([45]),
        int(0x2, 2),
        int(CAPS >>> 16, 2),
        Buffer.from([21]),
        Buffer.alloc(10),
        salt.subarray(8),
        Buffer.from([0]),
        Buffer.from("caching_sha2_password\0"),
      ]),
    );

    const onPacket = async (p) => {
      if (phase === "response") {
        clientCaps = p.readUInt32LE(0);
        let at = 32;
        const userEnd = p.indexOf(0, at);
        record.user = p.subarray(at, userEnd).toString();
        at = userEnd + 1;
        let n = p[at++];
        if (n === 0xfc) (n = p.readUInt16LE(at)), (at += 2);
        const answer = p.subarray(at, at + n);
        at += n;
        if (clientCaps & 0x8) {
          const end = p.indexOf(0, at);
          record.database = p.subarray(at, end).toString();
          at = end + 1;
        }
        const plugin = p.subarray(at, p.indexOf(0, at)).toString();
        requests.push(record);
        const user = MYSQL_USERS[record.user];
        if (!user) return deny();
        record.plugin = user.plugin;
        if (plugin !== user.plugin) {
          record.auth = "switch";
          salt = scramble();
          phase = "switched";
          return send(Buffer.concat([Buffer.from([0xfe]), Buffer.from(`${user.plugin}\0`), salt, Buffer.from([0])]));
        }
        return onAnswer(answer);
      }
      if (phase === "switched") return onAnswer(p);
      if (phase === "full") {
        if (p.length !== 1 || p[0] !== 0x02) return deny(); // no TLS here: the client must ask for the key
        phase = "key";
        return send(Buffer.concat([Buffer.from([0x01]), Buffer.from(pem)]));
      }
      if (phase === "key") {
        let clear;
        try {
          clear = xor(privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha1" }, p), salt);
        } catch {
          return deny();
        }
        if (clear.toString() !== `${MYSQL_USERS[record.user].password}\0`) return deny();
        signedIn.add(record.user);
        record.auth = "rsa";
        return welcome();
      }
      return onCommand(p);
    };
    const onAnswer = (answer) => {
      const user = MYSQL_USERS[record.user];
      if (user.plugin === "mysql_native_password") {
        record.auth ||= "native";
        return checkNative(answer) ? welcome() : deny();
      }
      if (signedIn.has(record.user) && checkFast(answer)) {
        record.auth = "fast";
        send(Buffer.from([0x01, 0x03]));
        return welcome();
      }
      if (!signedIn.has(record.user) && answer.length) {
        phase = "full";
        return send(Buffer.from([0x01, 0x04]));
      }
      return deny();
    };
    const onCommand = async (p) => {
      if (p[0] === 0x01) return socket.end();
      if (p[0] !== 0x03) return send(err(1047, "08S01", "Unknown command"));
      const sql = p.subarray(1).toString();
      record.statements.push(sql);
      const word = sql.trim().toUpperCase();
      if (/^SET SESSION MAX_EXECUTION_TIME\s*=\s*\d+$/.test(word)) return send(ok());
      if (word === "START TRANSACTION READ ONLY") return ((readOnly = true), send(ok(0x3)));
      if (word === "ROLLBACK" || word === "COMMIT") return ((readOnly = false), send(ok()));
      let result;
      try {
        result = await run(record.database, sql, readOnly);
      } catch (e) {
        const [errno, state, message] = ERRORS[e.code] ?? [1105, "HY000", (m) => m];
        return send(err(errno, state, message(e.message)));
      }
      if (!result.fields.length) return send(ok(0x2, 0x00, result.affectedRows ?? 0));
      send(lenenc(result.fields.length));
      for (const f of result.fields) {
        const [type, charset] = TYPES[f.dataTypeID] ?? [253, 45];
        const fixed = Buffer.concat([int(charset, 2), int(1024, 4), Buffer.from([type]), int(0, 2), Buffer.from([0]), int(0, 2)]);
        send(
          Buffer.concat([
            lenencStr("def"),
            lenencStr(record.database),
            lenencStr(""),
            lenencStr(""),
            lenencStr(f.name),
            lenencStr(""),
            lenenc(0x0c),
            fixed,
          ]),
        );
      }
      const eof = (status) => Buffer.concat([Buffer.from([0xfe]), int(0, 2), int(status, 2)]);
      const deprecateEof = clientCaps & 0x1000000;
      if (!deprecateEof) send(eof(0x2));
      for (const row of result.rows) {
        const bool = (v, i) => (result.fields[i].dataTypeID === 16 ? (v === "t" ? "1" : "0") : v);
        send(Buffer.concat(row.map((v, i) => (v === null ? Buffer.from([0xfb]) : lenencStr(bool(v, i))))));
      }
      send(deprecateEof ? ok(0x2, 0xfe) : eof(0x2));
    };

    socket.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4) {
        const n = buf.readUIntLE(0, 3);
        if (buf.length < 4 + n) break;
        const packet = buf.subarray(4, 4 + n);
        seq = (buf[3] + 1) & 0xff;
        buf = buf.subarray(4 + n);
        const seqNow = seq;
        queue = queue
          .then(() => {
            seq = seqNow;
            return onPacket(packet);
          })
          .catch(() => socket.destroy());
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = server.address().port;

  const http = createHttpServer(async (req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      const url = new URL(req.url, "http://x");
      if (req.method === "GET" && url.pathname === "/requests") return reply(200, requests);
      const dump = url.pathname.match(/^\/dump\/(\w+)\/(\w+)$/);
      if (req.method === "GET" && dump) {
        const exists = await db.query("SELECT to_regclass($1) AS t", [`"${dump[1]}"."${dump[2]}"`]);
        if (!exists.rows[0].t) return reply(200, { rows: [] });
        return reply(200, { rows: (await db.query(`SELECT * FROM "${dump[1]}"."${dump[2]}" ORDER BY 1`)).rows });
      }
      if (req.method === "POST" && url.pathname === "/sql") {
        let body = "";
        for await (const part of req) body += part;
        const { database, sql } = JSON.parse(body);
        return reply(200, { rows: (await run(database, sql, false)).rows });
      }
      reply(404, { error: "not found" });
    } catch (e) {
      reply(500, { error: String(e?.message ?? e) });
    }
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${http.address().port}`,
    host: "127.0.0.1",
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
      await new Promise((resolve) => http.close(resolve));
      await db.close();
    },
  };
}
