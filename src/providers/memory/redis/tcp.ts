// Redis over TCP (redis://, rediss:// with TLS) through the Workers socket API: one connection per
// pipeline — AUTH and SELECT first when the URL asks for them, then the commands, then QUIT — with
// one deadline over all of it. No client library: RESP is small (./resp.ts).
import { connect } from "cloudflare:sockets";
import { ApiError, fail } from "../../../errors";
import { type EndpointPolicy, assertEndpointHostAllowed } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { concatBytes } from "../../../lib/bytes";
import { RespError, RespReader, type RespValue, encodeCommand } from "./resp";
import { REDIS_TIMEOUT_MS, type RedisCommands } from "./types";
import { errorMessage } from "../../../lib/error-message";

export interface RedisTcpOptions {
  hostname: string;
  port: number;
  /** The outbound policy the address is under (checked when the client is made: a 400 naming the field). */
  policy: EndpointPolicy;
  tls: boolean;
  username?: string;
  password?: string;
  db?: number;
  timeoutMs?: number;
}

/** redis://[user[:password]@]host[:port][/db] or rediss://… */
export function tcpOptionsOfUrl(raw: string): Omit<RedisTcpOptions, "policy"> {
  const url = new URL(raw);
  const db = url.pathname.replace(/^\//, "");
  return {
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : 6379,
    tls: url.protocol === "rediss:",
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: db ? Number(db) : undefined,
  };
}

export class RedisTcp implements RedisCommands {
  readonly label: string;
  constructor(private readonly o: RedisTcpOptions) {
    assertEndpointHostAllowed(o.hostname, o.port, o.policy);
    this.label = `Redis at ${o.hostname}:${o.port}`;
  }

  /** `binary`: arguments may be bytes and bulk replies are answered as bytes (RediSearch's vectors). */
  async pipeline(commands: Array<Array<string | number | Uint8Array>>, { binary = false } = {}): Promise<RespValue[]> {
    const { o } = this;
    const ms = o.timeoutMs ?? REDIS_TIMEOUT_MS;
    const setup: Array<Array<string | number | Uint8Array>> = [];
    if (o.password) setup.push(o.username ? ["AUTH", o.username, o.password] : ["AUTH", o.password]);
    if (o.db) setup.push(["SELECT", o.db]);
    const all = [...setup, ...commands, ["QUIT"]];
    const secrets = o.password ? [o.password] : [];

    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(fail("TIMEOUT", `${this.label} did not answer within ${Math.round(ms)} ms`)), ms);
    });
    const socket = connect({ hostname: o.hostname, port: o.port }, { secureTransport: o.tls ? "on" : "off", allowHalfOpen: false });
    const work = (async () => {
      // Every command in one write: one round trip, whatever the pipeline's length.
      const writer = socket.writable.getWriter();
      await writer.write(concatBytes(all.map(encodeCommand)));
      writer.releaseLock();
      const reader = socket.readable.getReader();
      const parser = new RespReader(binary);
      const replies: RespValue[] = [];
      while (replies.length < all.length) {
        const value = parser.next();
        if (value !== undefined) {
          replies.push(value);
          continue;
        }
        const { done, value: chunk } = await reader.read();
        if (done) {
          // QUIT's +OK may be all that is missing: the server closed right after answering it.
          if (replies.length === all.length - 1) break;
          throw new Error("the connection closed before every reply arrived");
        }
        parser.push(chunk);
      }
      reader.releaseLock();
      return replies;
    })();
    try {
      const replies = await Promise.race([work, expired]);
      for (const [i, r] of replies.slice(0, setup.length).entries()) {
        if (r instanceof RespError)
          throw fail("UPSTREAM_FAILED", `${this.label} refused ${String(setup[i][0])}: ${redact(r.message, secrets)}`);
      }
      return replies.slice(setup.length, setup.length + commands.length);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw fail("UPSTREAM_FAILED", `${this.label} failed: ${redact(errorMessage(err), secrets)}`);
    } finally {
      clearTimeout(timer);
      work.catch(() => {});
      socket.close().catch(() => {});
    }
  }
}
