// One connection to a mongod/mongos over the Workers socket API (TLS when asked), speaking OP_MSG
// (opcode 2013): a message header, flag bits, one kind-0 section holding the command; replies
// are read the same way (kind-1 sections skipped, a checksum's 4 bytes ignored). No compression is
// offered in `hello`, so no reply is OP_COMPRESSED. A reply with ok: 0 is a MongoCommandError
// carrying Mongo's code, codeName and errmsg.
import { ByteQueue } from "../../lib/bytes";
import { connect } from "cloudflare:sockets";
import { type BsonDocument, decodeBson, encodeBson } from "./bson";

const OP_MSG = 2013;
const HEADER = 16;
const CHECKSUM_PRESENT = 1;
/** The largest reply read (MongoDB's maxMessageSizeBytes). */
const MAX_MESSAGE = 48_000_000;

/** A command MongoDB answered with ok: 0. */
export class MongoCommandError extends Error {
  constructor(
    readonly code: number | undefined,
    readonly codeName: string | undefined,
    readonly errmsg: string,
  ) {
    super(errmsg);
    this.name = "MongoCommandError";
  }
}

/** The connection closed, or said something that is not a MongoDB reply. */
export class MongoWireError extends Error {}

let nextRequestId = 1;

export class MongoConnection {
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly pending = new ByteQueue();

  private constructor(private readonly socket: Socket) {
    this.writer = socket.writable.getWriter();
    this.reader = socket.readable.getReader();
  }

  static async open(host: string, port: number, tls: boolean): Promise<MongoConnection> {
    const socket = connect({ hostname: host, port }, { secureTransport: tls ? "on" : "off", allowHalfOpen: false });
    await socket.opened;
    return new MongoConnection(socket);
  }

  /** Sends `cmd` (its first key the command's name, `$db` the database) and answers the reply; ok: 0 throws. */
  async command(cmd: BsonDocument): Promise<BsonDocument> {
    const body = encodeBson(cmd);
    const message = new Uint8Array(HEADER + 4 + 1 + body.length);
    const view = new DataView(message.buffer);
    const requestId = nextRequestId++ & 0x7fffffff;
    view.setInt32(0, message.length, true);
    view.setInt32(4, requestId, true);
    view.setInt32(8, 0, true);
    view.setInt32(12, OP_MSG, true);
    view.setUint32(16, 0, true);
    message[20] = 0;
    message.set(body, 21);
    await this.writer.write(message);
    const reply = await this.readMessage();
    const rv = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
    if (rv.getInt32(8, true) !== requestId) throw new MongoWireError("a reply answered another request");
    if (rv.getInt32(12, true) !== OP_MSG) throw new MongoWireError(`an unexpected reply (opcode ${rv.getInt32(12, true)})`);
    const doc = bodyOf(reply, rv);
    if (doc.ok !== 1 && doc.ok !== true) {
      const code = typeof doc.code === "number" ? doc.code : undefined;
      const codeName = typeof doc.codeName === "string" ? doc.codeName : undefined;
      throw new MongoCommandError(code, codeName, typeof doc.errmsg === "string" ? doc.errmsg : "command failed");
    }
    return doc;
  }

  private async readMessage(): Promise<Uint8Array> {
    for (;;) {
      if (this.pending.length >= 4) {
        const head = this.pending.peek(4);
        const size = new DataView(head.buffer, head.byteOffset, 4).getInt32(0, true);
        if (size < HEADER + 5 || size > MAX_MESSAGE) throw new MongoWireError(`not a MongoDB reply (length ${size})`);
        if (this.pending.length >= size) return this.pending.take(size);
      }
      const { done, value } = await this.reader.read();
      if (done) throw new MongoWireError("the server closed the connection");
      this.pending.push(value);
    }
  }

  close(): void {
    this.socket.close().catch(() => {});
  }
}

/** The kind-0 section of an OP_MSG reply. */
function bodyOf(reply: Uint8Array, view: DataView): BsonDocument {
  const flags = view.getUint32(HEADER, true);
  const end = reply.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
  let at = HEADER + 4;
  while (at < end) {
    const kind = reply[at++];
    if (kind === 0) return decodeBson(reply, at).doc;
    if (kind !== 1) throw new MongoWireError(`an unknown OP_MSG section kind ${kind}`);
    at += view.getInt32(at, true);
  }
  throw new MongoWireError("a reply without a body");
}
