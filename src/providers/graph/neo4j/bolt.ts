// One Bolt connection to Neo4j over the Workers socket API: neo4j:// and bolt:// in plain TCP,
// neo4j+s:// and bolt+s:// (and +ssc) over TLS, port 7687 unless the URL names one. The handshake
// offers Bolt 5.4 down to 5.0, then 4.4; HELLO carries the credentials (4.4, 5.0) or LOGON follows it
// (5.1+); a query is RUN (parameters, `db` and `tx_timeout` in its extra) and PULLed whole; a FAILURE
// is a Neo4jFailure carrying Neo4j's code, the connection RESET after it; GOODBYE before closing.
// No routing: a neo4j:// URL is reached directly at its host (single instances and Aura answer there).
// Every read and write waits under the caller's Deadline.
import { ByteQueue, concatBytes } from "../../../lib/bytes";
import { connect } from "cloudflare:sockets";
import type { Deadline } from "../../../lib/run-control";
import { Structure, Unpacker, Writer, pack } from "./packstream";

export const BOLT_PORT = 7687;

const HANDSHAKE = new Uint8Array([
  0x60,
  0x60,
  0xb0,
  0x17, // magic preamble
  0x00,
  0x04,
  0x04,
  0x05, // 5.4 and the 4 minor versions below it (5.0–5.4)
  0x00,
  0x00,
  0x04,
  0x04, // 4.4
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
]);

// Message tags.
const HELLO = 0x01;
const GOODBYE = 0x02;
const RESET = 0x0f;
const RUN = 0x10;
const PULL = 0x3f;
const LOGON = 0x6a;
const SUCCESS = 0x70;
const RECORD = 0x71;
const FAILURE = 0x7f;

const SCHEMES: Record<string, boolean> = {
  "neo4j:": false,
  "bolt:": false,
  "neo4j+s:": true,
  "bolt+s:": true,
  "neo4j+ssc:": true,
  "bolt+ssc:": true,
};

export interface BoltAddress {
  hostname: string;
  port: number;
  tls: boolean;
}

/** Where a Neo4j URL points; an Error saying what is wrong with it. */
export function addressOfUrl(raw: string): BoltAddress {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error("is not a URL (neo4j://host:7687, neo4j+s://host, bolt://host:7687)");
  }
  const tls = SCHEMES[url.protocol];
  if (tls === undefined) throw new Error(`must start with neo4j://, neo4j+s://, bolt:// or bolt+s:// (got ${url.protocol}//)`);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (!hostname) throw new Error("names no host");
  return { hostname, port: url.port ? Number(url.port) : BOLT_PORT, tls };
}

/** A FAILURE Neo4j answered: its status code (Neo.ClientError.…) and message. */
export class Neo4jFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "Neo4jFailure";
  }
}

export interface BoltResult {
  fields: string[];
  /** Each record's values, in `fields` order. */
  records: unknown[][];
}

function encode(tag: number, ...fields: unknown[]): Uint8Array {
  const body = new Writer();
  pack(body, new Structure(tag, fields));
  const bytes = body.result();
  const out = new Writer();
  for (let at = 0; at < bytes.length; at += 0xffff) {
    const part = bytes.subarray(at, at + 0xffff);
    out.u16(part.length);
    out.bytes(part);
  }
  out.u16(0); // end of message
  return out.result();
}

const metadata = (m: Structure): Record<string, unknown> => (m.fields[0] ?? {}) as Record<string, unknown>;
const failureOf = (m: Structure): Neo4jFailure => {
  const meta = metadata(m);
  return new Neo4jFailure(String(meta.code ?? "Neo.DatabaseError.General.UnknownError"), String(meta.message ?? "no message"));
};

export interface BoltAuth {
  username: string;
  password: string;
  userAgent: string;
}

export class BoltConnection {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly pending = new ByteQueue();
  /** The agreed version, e.g. [5, 4]. */
  version: [number, number] = [0, 0];

  private constructor(
    private readonly socket: ReturnType<typeof connect>,
    private readonly deadline: Deadline,
  ) {
    this.reader = socket.readable.getReader();
    this.writer = socket.writable.getWriter();
  }

  /** Connects, agrees on a version and authenticates; a refused login is a Neo4jFailure. */
  static async open(address: BoltAddress, auth: BoltAuth, deadline: Deadline): Promise<BoltConnection> {
    const socket = connect(
      { hostname: address.hostname, port: address.port },
      { secureTransport: address.tls ? "on" : "off", allowHalfOpen: false },
    );
    const conn = new BoltConnection(socket, deadline);
    try {
      await deadline.race(socket.opened);
      await conn.write(HANDSHAKE);
      const v = await conn.take(4);
      if (!v[3]) throw new Error("the server speaks none of Bolt 5.0–5.4 and 4.4");
      conn.version = [v[3], v[2]];
      await conn.authenticate(auth);
      return conn;
    } catch (err) {
      conn.abort();
      throw err;
    }
  }

  private atLeast(major: number, minor: number): boolean {
    const [ma, mi] = this.version;
    return ma > major || (ma === major && mi >= minor);
  }

  private async authenticate({ username, password, userAgent }: BoltAuth): Promise<void> {
    const basic = { scheme: "basic", principal: username, credentials: password };
    const hello: Record<string, unknown> = { user_agent: userAgent };
    if (this.atLeast(5, 3)) hello.bolt_agent = { product: userAgent, language: "JavaScript" };
    const messages = this.atLeast(5, 1) ? [encode(HELLO, hello), encode(LOGON, basic)] : [encode(HELLO, { ...hello, ...basic })];
    await this.write(concatBytes(messages));
    for (let i = 0; i < messages.length; i++) {
      const reply = await this.message();
      if (reply.tag === FAILURE) throw failureOf(reply); // the server closes after a failed login
      if (reply.tag !== SUCCESS) throw new Error(`unexpected reply 0x${reply.tag.toString(16)} to the login`);
    }
  }

  /** Runs one query and reads all its records; a FAILURE resets the connection and is thrown. */
  async run(query: string, parameters: Record<string, unknown>, extra: Record<string, unknown>): Promise<BoltResult> {
    await this.write(concatBytes([encode(RUN, query, parameters, extra), encode(PULL, { n: -1 })]));
    const head = await this.message();
    if (head.tag !== SUCCESS) {
      await this.message(); // PULL: IGNORED after the failure
      await this.reset();
      throw head.tag === FAILURE ? failureOf(head) : new Error(`unexpected reply 0x${head.tag.toString(16)} to RUN`);
    }
    const fields = ((metadata(head).fields ?? []) as unknown[]).map(String);
    const records: unknown[][] = [];
    for (;;) {
      const m = await this.message(true);
      if (m.tag === RECORD) records.push(m.fields[0] as unknown[]);
      else if (m.tag === SUCCESS) return { fields, records };
      else {
        await this.reset();
        throw m.tag === FAILURE ? failureOf(m) : new Error(`unexpected reply 0x${m.tag.toString(16)} to PULL`);
      }
    }
  }

  private async reset(): Promise<void> {
    await this.write(encode(RESET));
    const m = await this.message();
    if (m.tag !== SUCCESS) throw failureOf(m);
  }

  /** GOODBYE, then the socket closed; never throws. */
  async close(): Promise<void> {
    try {
      await this.writer.write(encode(GOODBYE));
    } catch {
      // already gone
    }
    this.abort();
  }

  private abort(): void {
    try {
      this.reader.releaseLock();
      this.writer.releaseLock();
    } catch {
      // a read still pending: closing the socket ends it
    }
    this.socket.close().catch(() => undefined);
  }

  private async write(bytes: Uint8Array): Promise<void> {
    await this.deadline.race(this.writer.write(bytes));
  }

  /** Exactly n bytes from the socket. */
  private async take(n: number): Promise<Uint8Array> {
    while (this.pending.length < n) {
      const { done, value } = await this.deadline.race(this.reader.read());
      if (done) throw new Error("the server closed the connection");
      this.pending.push(value);
    }
    return this.pending.take(n);
  }

  /** The next message, its chunks joined (empty keep-alive chunks skipped); a record's integers as text. */
  private async message(intsAsText = false): Promise<Structure> {
    const parts: Uint8Array[] = [];
    for (;;) {
      const head = await this.take(2);
      const size = (head[0] << 8) | head[1];
      if (size === 0) {
        if (parts.length) break;
        continue;
      }
      parts.push((await this.take(size)).slice());
    }
    return new Unpacker(concatBytes(parts), { intsAsText }).message();
  }
}
