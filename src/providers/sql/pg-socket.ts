// The TCP socket postgres.js talks through (its `socket` option), over the Workers socket API. Like
// the driver's own Workers socket, but a read that fails after the connection was closed is not
// reported to nobody (an 'error' with no listener would be an unhandled rejection on every close),
// and connecting is bounded by the connect timeout (the driver's timer starts only after this).
import { connect } from "cloudflare:sockets";
import { Buffer } from "node:buffer";
import { EventEmitter } from "node:events";
import postgres from "postgres";

interface ConnectOptions {
  host: string[];
  port: number[];
  ssl?: unknown;
  connect_timeout?: number;
}

class ConnectTimeout extends Error {
  readonly code = "CONNECT_TIMEOUT";
}

export async function workersSocket(options: ConnectOptions): Promise<EventEmitter> {
  const host = options.host[0];
  const port = options.port[0];
  const raw = connect({ hostname: host, port }, { secureTransport: options.ssl ? "starttls" : "off", allowHalfOpen: false });
  const timeoutMs = (options.connect_timeout ?? 10) * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      raw.opened,
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new ConnectTimeout(`connect timed out after ${timeoutMs / 1000} s`)), timeoutMs)),
      ),
    ]);
  } catch (err) {
    raw.close().catch(() => undefined);
    throw err;
  } finally {
    clearTimeout(timer);
  }

  // The fields (raw, writer, reader, read, readyState) are the ones the driver's tls.connect upgrades.
  const tcp = Object.assign(new EventEmitter(), {
    host,
    port,
    readyState: "open",
    raw,
    writer: raw.writable.getWriter(),
    reader: raw.readable.getReader(),
    write(data: Uint8Array, cb?: () => void) {
      tcp.writer.write(data).then(cb, fail);
      return true;
    },
    end(data?: Uint8Array) {
      if (data) tcp.write(data, () => void tcp.raw.close().catch(() => undefined));
      else tcp.raw.close().catch(() => undefined);
    },
    destroy() {
      tcp.end();
    },
    read,
  });
  function fail(err: unknown) {
    if (tcp.readyState !== "closed" && tcp.listenerCount("error")) tcp.emit("error", err);
    close();
  }
  function close() {
    if (tcp.readyState === "closed") return;
    tcp.readyState = "closed";
    tcp.emit("close");
  }
  async function read() {
    try {
      for (;;) {
        const { done, value } = await tcp.reader.read();
        if (done) break;
        tcp.emit("data", Buffer.from(value));
      }
    } catch (err) {
      fail(err);
    }
  }
  raw.closed.then(close, fail);
  void read();
  return tcp;
}

/** What every edgeflow connection sets: one connection, no type or statement round trips, our socket. */
const WORKERS_OPTIONS = {
  max: 1,
  fetch_types: false,
  prepare: false,
  onnotice: () => {},
  connection: { application_name: "edgeflow" },
  socket: workersSocket,
};

/** A postgres.js client over the Workers socket: a connection string, or options, plus the caller's own options. */
export function workersPostgres(
  target: string | postgres.Options<Record<string, never>>,
  options: postgres.Options<Record<string, never>> = {},
) {
  // `socket` is a documented option the type definitions leave out.
  const all = { ...WORKERS_OPTIONS, ...options } as postgres.Options<Record<string, never>>;
  return typeof target === "string" ? postgres(target, all) : postgres({ ...(target as object), ...all } as typeof all);
}
