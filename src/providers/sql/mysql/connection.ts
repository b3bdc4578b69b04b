// One MySQL connection over the Workers socket API (also SingleStore, MariaDB): the v10 handshake
// (TLS by SSLRequest then STARTTLS when asked), authentication with mysql_native_password or
// caching_sha2_password (auth switch requests followed), COM_QUERY with text result sets, COM_QUIT.
// No client library. The caller checks the host under the outbound policy before connecting and
// bounds the whole session with a deadline (closing the connection ends whatever is pending).
import { connect } from "cloudflare:sockets";
import { CACHING_SHA2, NATIVE, PLUGINS, clearPassword, rsaPassword, scramblePassword, scrambleOf } from "./auth";
import { PacketReader, PayloadReader, PayloadWriter, concat, frame, text, utf8 } from "./packets";
import { type Column, type QueryResult, readColumn, readRow } from "./results";

const CLIENT = {
  LONG_PASSWORD: 0x1,
  LONG_FLAG: 0x4,
  CONNECT_WITH_DB: 0x8,
  PROTOCOL_41: 0x200,
  SSL: 0x800,
  TRANSACTIONS: 0x2000,
  SECURE_CONNECTION: 0x8000,
  MULTI_RESULTS: 0x20000,
  PLUGIN_AUTH: 0x80000,
  PLUGIN_AUTH_LENENC_DATA: 0x200000,
  DEPRECATE_EOF: 0x1000000,
};
const SERVER_MORE_RESULTS = 0x8;
const SERVER_NO_BACKSLASH_ESCAPES = 0x200;
/** utf8mb4_general_ci: known to MySQL 5.5+, MariaDB and SingleStore. */
const UTF8MB4 = 45;

export interface MySqlOptions {
  host: string;
  port: number;
  user: string;
  password?: string;
  database?: string;
  /** Encrypt the connection (SSLRequest, then STARTTLS); refused if the server cannot. */
  tls: boolean;
}

/** The server answered ERR: its error number, SQLSTATE and message. */
export class MySqlError extends Error {
  constructor(
    readonly errno: number,
    readonly sqlState: string,
    message: string,
    /** Raised while connecting (authentication, an unknown database), not by a statement. */
    readonly handshake = false,
  ) {
    super(message);
    this.name = "MySqlError";
  }
}

function errOf(payload: Uint8Array, handshake = false): MySqlError {
  const r = new PayloadReader(payload);
  r.int(1);
  const errno = r.int(2);
  let state = "HY000";
  if (payload[3] === 0x23) {
    r.int(1);
    state = text(r.bytes(5));
  }
  return new MySqlError(errno, state, text(r.rest()), handshake);
}

const hasAll = (caps: number, flag: number) => (caps & flag) === flag;

export class MySqlConnection {
  private socket!: ReturnType<typeof connect>;
  private reader!: PacketReader;
  private writer!: WritableStreamDefaultWriter<Uint8Array>;
  private caps = 0;
  private status = 0;
  private closed = false;
  /** A result set left unread (a read stopped early): the connection cannot take another command. */
  private dirty = false;
  serverVersion = "";

  constructor(private readonly o: MySqlOptions) {}

  /** Connects and authenticates; throws MySqlError (handshake) for the server's refusal. */
  async open(): Promise<this> {
    try {
      await this.handshake();
    } catch (err) {
      this.close();
      throw err;
    }
    return this;
  }

  get noBackslashEscapes(): boolean {
    return (this.status & SERVER_NO_BACKSLASH_ESCAPES) !== 0;
  }

  private async send(payload: Uint8Array, seq: number): Promise<void> {
    await this.writer.write(frame(payload, seq).bytes);
  }

  private async handshake(): Promise<void> {
    const { o } = this;
    if (this.closed) throw new Error("the connection is closed");
    this.socket = connect({ hostname: o.host, port: o.port }, { secureTransport: o.tls ? "starttls" : "off", allowHalfOpen: false });
    this.writer = this.socket.writable.getWriter();
    this.reader = new PacketReader(this.socket.readable.getReader());
    const hello = await this.reader.next();
    if (hello[0] === 0xff) throw errOf(hello, true);
    const r = new PayloadReader(hello);
    if (r.int(1) !== 10) throw new Error(`the server speaks protocol version ${hello[0]}, not 10: is this a MySQL server?`);
    this.serverVersion = r.cstring();
    r.int(4); // connection id
    const part1 = r.bytes(8);
    r.int(1);
    let serverCaps = r.int(2);
    let plugin = NATIVE;
    let part2: Uint8Array = new Uint8Array();
    if (r.left > 0) {
      r.int(1); // character set
      this.status = r.int(2);
      serverCaps += r.int(2) * 0x10000;
      const dataLength = r.int(1);
      r.bytes(10);
      if (serverCaps & CLIENT.SECURE_CONNECTION) part2 = r.bytes(Math.max(13, dataLength - 8));
      if (serverCaps & CLIENT.PLUGIN_AUTH) plugin = r.cstring() || NATIVE;
    }
    const required = CLIENT.PROTOCOL_41 | CLIENT.SECURE_CONNECTION;
    if (!hasAll(serverCaps, required)) throw new Error("the server is too old (no 4.1 protocol or secure authentication)");
    const wanted =
      CLIENT.LONG_PASSWORD |
      CLIENT.LONG_FLAG |
      CLIENT.PROTOCOL_41 |
      CLIENT.TRANSACTIONS |
      CLIENT.SECURE_CONNECTION |
      CLIENT.MULTI_RESULTS |
      CLIENT.PLUGIN_AUTH |
      CLIENT.PLUGIN_AUTH_LENENC_DATA |
      CLIENT.DEPRECATE_EOF |
      (o.database ? CLIENT.CONNECT_WITH_DB : 0) |
      (o.tls ? CLIENT.SSL : 0);
    this.caps = wanted & serverCaps;
    let seq = this.reader.seq;
    if (o.tls) {
      if (!(serverCaps & CLIENT.SSL)) throw new Error("the server does not offer TLS (remove ssl from the connection settings)");
      await this.send(new PayloadWriter().int(this.caps, 4).int(0x1000000, 4).int(UTF8MB4, 1).zeros(23).done(), seq++);
      this.writer.releaseLock();
      this.reader = await this.upgrade();
    }
    let scramble = scrambleOf(concat([part1, part2]));
    if (!PLUGINS.has(plugin)) plugin = NATIVE; // the server will ask for its plugin by an auth switch
    let answer = await scramblePassword(plugin, o.password ?? "", scramble);
    const w = new PayloadWriter().int(this.caps, 4).int(0x1000000, 4).int(UTF8MB4, 1).zeros(23).cstring(o.user);
    if (this.caps & CLIENT.PLUGIN_AUTH_LENENC_DATA) w.lenencBytes(answer);
    else w.int(answer.length, 1).bytes(answer);
    if (this.caps & CLIENT.CONNECT_WITH_DB) w.cstring(o.database ?? "");
    if (this.caps & CLIENT.PLUGIN_AUTH) w.cstring(plugin);
    await this.send(w.done(), seq);

    for (;;) {
      const p = await this.reader.next();
      if (p[0] === 0x00) return this.readOk(p);
      if (p[0] === 0xff) throw errOf(p, true);
      if (p[0] === 0xfe) {
        // Auth switch: another plugin, with its own scramble.
        const s = new PayloadReader(p);
        s.int(1);
        plugin = s.cstring();
        if (!PLUGINS.has(plugin)) throw new Error(`the server asks for authentication plugin ${plugin}, which is not supported here`);
        scramble = scrambleOf(s.rest());
        answer = await scramblePassword(plugin, o.password ?? "", scramble);
        await this.send(answer, this.reader.seq);
      } else if (p[0] === 0x01 && plugin === CACHING_SHA2) {
        if (p[1] === 0x03) continue; // fast authentication succeeded: OK follows
        if (p[1] === 0x04) {
          // Full authentication: the password over TLS, else encrypted with the server's public key.
          if (o.tls) await this.send(clearPassword(o.password ?? ""), this.reader.seq);
          else {
            await this.send(new Uint8Array([0x02]), this.reader.seq);
            const key = await this.reader.next();
            if (key[0] === 0xff) throw errOf(key, true);
            await this.send(await rsaPassword(o.password ?? "", scramble, text(key.subarray(1))), this.reader.seq);
          }
        } else throw new Error("the server sent an unexpected caching_sha2_password message");
      } else throw new Error(`the server sent an unexpected packet (0x${p[0].toString(16)}) while authenticating`);
    }
  }

  /** SSLRequest sent: STARTTLS on the socket, and the packet reader over the encrypted stream. */
  private async upgrade(): Promise<PacketReader> {
    const old = this.socket;
    // The reader holds no buffered bytes here: the server says nothing between SSLRequest and TLS.
    this.reader.release();
    this.socket = old.startTls();
    this.writer = this.socket.writable.getWriter();
    const reader = new PacketReader(this.socket.readable.getReader());
    reader.seq = 2;
    return reader;
  }

  private readOk(p: Uint8Array): void {
    const r = new PayloadReader(p);
    r.int(1);
    r.lenencInt(); // affected rows
    r.lenencInt(); // last insert id
    this.status = r.int(2);
  }

  /** Runs one statement (COM_QUERY); `maxRows` stops reading rows (the connection is then spent). */
  async query(sql: string, maxRows = Number.POSITIVE_INFINITY): Promise<QueryResult> {
    if (this.closed || this.dirty) throw new Error("the connection is closed");
    await this.send(concat([new Uint8Array([0x03]), utf8(sql)]), 0);
    let result: QueryResult | undefined;
    for (;;) {
      const one = await this.readResult(result ? 0 : maxRows);
      result ??= one;
      if (this.dirty || !(this.status & SERVER_MORE_RESULTS)) return result;
    }
  }

  private async readResult(maxRows: number): Promise<QueryResult> {
    const first = await this.reader.next();
    if (first[0] === 0x00) {
      const r = new PayloadReader(first);
      r.int(1);
      const affectedRows = r.lenencInt() ?? 0;
      r.lenencInt();
      this.status = r.int(2);
      return { columns: [], rows: [], affectedRows, truncated: false };
    }
    if (first[0] === 0xff) throw errOf(first);
    if (first[0] === 0xfb) throw new Error("the server asked for a local file (LOAD DATA LOCAL), which is refused");
    const count = new PayloadReader(first).lenencInt() ?? 0;
    const columns: Column[] = [];
    for (let i = 0; i < count; i++) columns.push(readColumn(await this.reader.next()));
    if (!(this.caps & CLIENT.DEPRECATE_EOF)) this.readEof(await this.reader.next());
    const rows: Record<string, unknown>[] = [];
    for (;;) {
      const p = await this.reader.next();
      if (p[0] === 0xff) throw errOf(p);
      if (p[0] === 0xfe && p.length < 0xffffff) {
        if (this.caps & CLIENT.DEPRECATE_EOF) this.readOk(p);
        else this.readEof(p);
        return { columns, rows, affectedRows: 0, truncated: false };
      }
      if (rows.length >= maxRows) {
        this.dirty = true;
        return { columns, rows, affectedRows: 0, truncated: true };
      }
      rows.push(readRow(p, columns));
    }
  }

  private readEof(p: Uint8Array): void {
    if (p[0] === 0xff) throw errOf(p);
    if (p.length >= 5) this.status = p[3] | (p[4] << 8);
  }

  /** COM_QUIT, then the socket closed; never throws. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.socket) return;
    const quit = this.writer && !this.dirty ? this.writer.write(frame(new Uint8Array([0x01]), 0).bytes) : Promise.resolve();
    void quit.catch(() => undefined).finally(() => this.socket?.close().catch(() => undefined));
  }
}
