// A MongoDB client of our own (no driver: its Node sockets and size do not fit a Worker), over
// ./wire.ts: each session opens one connection — the first of the URL's hosts that answers, then
// the replica set's primary when `hello` names another one (writes and reads both go to the
// primary, the drivers' default read preference) — says `hello`, authenticates with
// SCRAM-SHA-256 (./scram.ts) against authSource, runs its commands and closes, all under one
// deadline. The commands: insert, find and aggregate (their cursors drained with getMore), update,
// delete. A command error is a 502 naming the command with Mongo's errmsg and code (never the
// password), silence a 504, a host the outbound policy refuses a 400.
import { ApiError, fail } from "../../errors";
import { errorMessage } from "../../lib/error-message";
import { assertEndpointHostAllowed } from "../../lib/outbound";
import { redact } from "../../lib/redact";
import { RunAborted } from "../../lib/run-control";
import type { BsonDocument } from "./bson";
import { chooseMechanism, scramSha256 } from "./scram";
import { type MongoTarget, type MongoUrlEnv, checkMongoUrl, resolveMongoUrl } from "./uri";
import { MongoCommandError, MongoConnection } from "./wire";

export { ObjectId } from "./bson";
export type { BsonDocument } from "./bson";

export const MONGODB_TIMEOUT_MS = 30_000;
const DRIVER = { name: "edgeflow", version: "1" };
/** Documents a getMore loop reads at most (a runaway cursor is cut off). */
const MAX_CURSOR_DOCS = 100_000;
const AUTH_FAILED = 18;

export interface MongoClientOptions {
  /** The connection string (mongodb:// or mongodb+srv://). */
  url: string;
  /** Where the URL came from, named in a refusal ("mongoDBUrlApi credential mongoDBConnectUrl"). */
  field: string;
  env: MongoUrlEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WriteError {
  index: number;
  code?: number;
  errmsg?: string;
}

/** Runs one command of a session: its reply (ok: 1), else a thrown ApiError. */
export type RunCommand = (cmd: BsonDocument) => Promise<BsonDocument>;

const commandName = (cmd: BsonDocument) => Object.keys(cmd)[0] ?? "command";

export class MongoClient {
  private target: Promise<MongoTarget> | undefined;
  label = "MongoDB";

  constructor(private readonly o: MongoClientOptions) {
    checkMongoUrl(o.url, o.field, o.env);
  }

  private resolve(): Promise<MongoTarget> {
    this.target ??= resolveMongoUrl(this.o.url, this.o.field, this.o.env, this.o.signal);
    this.target.catch(() => (this.target = undefined));
    return this.target;
  }

  /** Opens a connection to the primary, authenticated, runs `work` on it, closes it. */
  async session<T>(work: (run: RunCommand) => Promise<T>): Promise<T> {
    const ms = this.o.timeoutMs ?? MONGODB_TIMEOUT_MS;
    const target = await this.resolve();
    const secrets = target.password ? [target.password] : [];
    let conn: MongoConnection | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort = () => {};
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(fail("TIMEOUT", `${this.label} did not answer within ${Math.round(ms)} ms`)), ms);
      onAbort = () => reject(new RunAborted());
      if (this.o.signal?.aborted) onAbort();
      this.o.signal?.addEventListener("abort", onAbort, { once: true });
    });
    let what = "connect";
    const run: RunCommand = async (cmd) => {
      what = commandName(cmd);
      if (!conn) throw new Error("not connected");
      return Promise.race([conn.command(cmd), stopped]);
    };
    try {
      conn = await Promise.race([this.connect(target), stopped]);
      return await Promise.race([work(run), stopped]);
    } catch (err) {
      if (err instanceof ApiError || err instanceof RunAborted) throw err;
      if (err instanceof MongoCommandError) {
        const code = [err.code, err.codeName].filter((x) => x !== undefined).join(" ");
        if (err.code === AUTH_FAILED || /^sasl/.test(what))
          throw fail("UPSTREAM_FAILED", `${this.label} refused authentication: ${redact(err.errmsg, secrets)} (${code})`);
        throw fail("UPSTREAM_FAILED", `${this.label} ${what} failed: ${redact(err.errmsg, secrets)}${code ? ` (${code})` : ""}`);
      }
      throw fail("UPSTREAM_FAILED", `${this.label} ${what} failed: ${redact(errorMessage(err), secrets)}`);
    } finally {
      clearTimeout(timer);
      this.o.signal?.removeEventListener("abort", onAbort);
      stopped.catch(() => {});
      conn?.close();
    }
  }

  /** The first host that answers; the primary when it is a secondary of a replica set; authenticated. */
  private async connect(target: MongoTarget): Promise<MongoConnection> {
    let lastError: unknown;
    for (const h of target.hosts) {
      let conn: MongoConnection | undefined;
      try {
        conn = await MongoConnection.open(h.host, h.port, target.tls);
        this.label = `MongoDB at ${h.host}:${h.port}`;
        let hello = await this.hello(conn, target);
        if (hello.setName !== undefined && !(hello.isWritablePrimary === true || hello.ismaster === true)) {
          const primary = typeof hello.primary === "string" ? hello.primary : "";
          if (!primary) throw new Error(`replica set ${String(hello.setName)} has no primary now`);
          const m = /^(.*):(\d+)$/.exec(primary);
          const host = (m ? m[1] : primary).replace(/^\[|\]$/g, "");
          const port = m ? Number(m[2]) : 27017;
          assertEndpointHostAllowed(host, port, { field: `${this.o.field} (the replica set's primary)`, env: this.o.env });
          conn.close();
          conn = await MongoConnection.open(host, port, target.tls);
          this.label = `MongoDB at ${host}:${port}`;
          hello = await this.hello(conn, target);
        }
        if (target.username !== undefined) {
          const mechanism = chooseMechanism(target.authMechanism, hello.saslSupportedMechs, this.label);
          const c = conn;
          if (mechanism) await scramSha256((cmd) => c.command(cmd), target.authSource, target.username, target.password ?? "", this.label);
        }
        return conn;
      } catch (err) {
        conn?.close();
        if (err instanceof ApiError || err instanceof MongoCommandError) throw err;
        lastError = err;
      }
    }
    throw lastError ?? new Error("no host to connect to");
  }

  private hello(conn: MongoConnection, target: MongoTarget): Promise<BsonDocument> {
    return conn.command({
      hello: 1,
      helloOk: true,
      client: {
        driver: DRIVER,
        os: { type: "Cloudflare Workers" },
        ...(target.appName ? { application: { name: target.appName } } : {}),
      },
      ...(target.username !== undefined ? { saslSupportedMechs: `${target.authSource}.${target.username}` } : {}),
      $db: "admin",
    });
  }
}

/** The command helpers on one database's collection, each in a session of its own unless given `run`. */
export class MongoCollection {
  constructor(
    readonly client: MongoClient,
    readonly db: string,
    readonly name: string,
  ) {}

  /** Runs `work` with this collection's commands bound to one connection. */
  session<T>(work: (c: BoundCollection) => Promise<T>): Promise<T> {
    return this.client.session((run) => work(new BoundCollection(run, this.db, this.name)));
  }
}

/** A collection's commands over one session's connection. */
export class BoundCollection {
  constructor(
    private readonly run: RunCommand,
    readonly db: string,
    readonly name: string,
  ) {}

  /** insert, unordered: the write errors (a duplicate _id is code 11000), the others written. */
  async insert(documents: BsonDocument[]): Promise<WriteError[]> {
    const reply = await this.run({ insert: this.name, documents, ordered: false, $db: this.db });
    return (Array.isArray(reply.writeErrors) ? reply.writeErrors : []) as WriteError[];
  }

  /** update: the statements' matched and upserted counts; a write error throws. */
  async update(updates: Array<{ q: BsonDocument; u: BsonDocument | BsonDocument[]; upsert?: boolean; multi?: boolean }>) {
    const reply = await this.run({ update: this.name, updates, ordered: true, $db: this.db });
    this.check("update", reply);
    return { n: Number(reply.n ?? 0), nModified: Number(reply.nModified ?? 0) };
  }

  /** delete: every document matching each filter (limit 0); answers how many went. */
  async delete(filters: BsonDocument[], limit: 0 | 1 = 0): Promise<number> {
    const reply = await this.run({ delete: this.name, deletes: filters.map((q) => ({ q, limit })), ordered: true, $db: this.db });
    this.check("delete", reply);
    return Number(reply.n ?? 0);
  }

  find(filter: BsonDocument, options: { projection?: BsonDocument; limit?: number } = {}): Promise<BsonDocument[]> {
    return this.drain({ find: this.name, filter, ...options, $db: this.db }, options.limit);
  }

  aggregate(pipeline: BsonDocument[]): Promise<BsonDocument[]> {
    return this.drain({ aggregate: this.name, pipeline, cursor: {}, $db: this.db });
  }

  private check(what: string, reply: BsonDocument): void {
    const errors = Array.isArray(reply.writeErrors) ? (reply.writeErrors as WriteError[]) : [];
    const concern = reply.writeConcernError as WriteError | undefined;
    const first = errors[0] ?? concern;
    if (first) throw new MongoCommandError(first.code, undefined, `${first.errmsg ?? "write failed"} (in ${what})`);
  }

  /** A cursor's documents: its first batch, then getMore until the server closes it (id 0) or `limit` is reached. */
  private async drain(cmd: BsonDocument, limit?: number): Promise<BsonDocument[]> {
    const reply = await this.run(cmd);
    let cursor = (reply.cursor ?? {}) as { id?: number | bigint; firstBatch?: BsonDocument[]; nextBatch?: BsonDocument[] };
    const out: BsonDocument[] = [...(cursor.firstBatch ?? [])];
    const cap = limit && limit > 0 ? limit : MAX_CURSOR_DOCS;
    while (cursor.id !== undefined && BigInt(cursor.id) !== 0n && out.length < cap) {
      const next = await this.run({ getMore: BigInt(cursor.id), collection: this.name, $db: this.db });
      cursor = (next.cursor ?? {}) as typeof cursor;
      const batch = cursor.nextBatch ?? [];
      if (!batch.length && BigInt(cursor.id ?? 0) !== 0n) continue;
      out.push(...batch);
    }
    if (cursor.id !== undefined && BigInt(cursor.id) !== 0n)
      await this.run({ killCursors: this.name, cursors: [BigInt(cursor.id)], $db: this.db }).catch(() => {});
    return out.slice(0, cap);
  }
}
