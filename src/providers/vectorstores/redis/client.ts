// RediSearch over RESP (the memories' TCP client, ../../memory/redis/tcp.ts, in its binary mode:
// vectors travel as raw float32 bytes), on one index laid out as LangChain's RedisVectorStore
// (Flowise's node) makes it: FT.CREATE <index> ON HASH PREFIX 1 doc:<index>: SCHEMA <vectorKey>
// VECTOR HNSW 6 TYPE FLOAT32 DIM <d> DISTANCE_METRIC COSINE <contentKey> TEXT <metadataKey> TEXT;
// one hash per vector, doc:<index>:<id>; FT.SEARCH with a KNN query, DIALECT 2. An error reply is
// a 502 with Redis's message (a Redis without RediSearch says so), never the password.
import { fail } from "../../../errors";
import { RespError, type RespValue } from "../../memory/redis/resp";
import type { RedisTcp } from "../../memory/redis/tcp";

export const SCORE_FIELD = "vector_score";

export interface RedisSearchKeys {
  contentKey: string;
  metadataKey: string;
  vectorKey: string;
}

export interface RedisHit {
  key: string;
  fields: Map<string, Uint8Array>;
}

const decoder = new TextDecoder();
export const text = (v: RespValue | undefined): string =>
  v instanceof Uint8Array ? decoder.decode(v) : typeof v === "string" || typeof v === "number" ? String(v) : "";

/** A float32 vector as the bytes RediSearch stores (little-endian, as LangChain's Buffer). */
export const float32Bytes = (v: number[]): Uint8Array => new Uint8Array(new Float32Array(v).buffer);
export const float32Of = (b: Uint8Array): number[] => Array.from(new Float32Array(b.slice().buffer, 0, Math.floor(b.byteLength / 4)));

type Arg = string | number | Uint8Array;

const isUnknownIndex = (r: RespValue) => r instanceof RespError && /unknown index|no such index/i.test(r.message);

export class RediSearchClient {
  readonly prefix: string;

  constructor(
    private readonly tcp: RedisTcp,
    private readonly index: string,
    private readonly keys: RedisSearchKeys,
  ) {
    this.prefix = `doc:${index}:`;
  }

  /** Runs the commands; an error reply (other than those `allow` accepts) is a 502 naming `what`. */
  private async run(what: string, commands: Arg[][], allow = (_r: RespValue) => false) {
    const replies = await this.tcp.pipeline(commands, { binary: true });
    for (const r of replies) {
      if (!(r instanceof RespError) || allow(r)) continue;
      const hint = /unknown command/i.test(r.message) ? " (is this Redis Stack, with RediSearch?)" : "";
      throw fail("UPSTREAM_FAILED", `${this.tcp.label} ${what} failed: ${r.message}${hint}`);
    }
    return replies;
  }

  /** Whether the index exists (FT.INFO answers "Unknown index name" when it does not). */
  async exists(): Promise<boolean> {
    const [info] = await this.run("FT.INFO", [["FT.INFO", this.index]], isUnknownIndex);
    return !(info instanceof RespError);
  }

  async dropIndex(): Promise<void> {
    await this.run("FT.DROPINDEX", [["FT.DROPINDEX", this.index]], isUnknownIndex);
  }

  /** LangChain's index (HNSW, cosine) for vectors of `dim`; one made meanwhile by another writer is as good. */
  async create(dim: number): Promise<void> {
    const { vectorKey, contentKey, metadataKey } = this.keys;
    const command: Arg[] = ["FT.CREATE", this.index, "ON", "HASH", "PREFIX", 1, this.prefix, "SCHEMA"];
    command.push(vectorKey, "VECTOR", "HNSW", 6, "TYPE", "FLOAT32", "DIM", dim, "DISTANCE_METRIC", "COSINE");
    command.push(contentKey, "TEXT", metadataKey, "TEXT");
    await this.run("FT.CREATE", [command], (r) => r instanceof RespError && /already exists/i.test(r.message));
  }

  /** One HSET per vector: the vector's bytes, the text, the metadata as LangChain escapes it. */
  async write(rows: Array<{ id: string; vector: number[]; text: string; metadata: string }>): Promise<void> {
    const { vectorKey, contentKey, metadataKey } = this.keys;
    await this.run(
      "HSET",
      rows.map((r) => ["HSET", `${this.prefix}${r.id}`, vectorKey, float32Bytes(r.vector), contentKey, r.text, metadataKey, r.metadata]),
    );
  }

  /** Which of `ids` have a hash. */
  async existing(ids: string[]): Promise<boolean[]> {
    const replies = await this.run(
      "EXISTS",
      ids.map((id) => ["EXISTS", `${this.prefix}${id}`]),
    );
    return replies.map((r) => r === 1);
  }

  async remove(ids: string[]): Promise<void> {
    await this.run("DEL", [["DEL", ...ids.map((id) => `${this.prefix}${id}`)]]);
  }

  /**
   * The k nearest hashes (LangChain's query: `filter` terms OR'ed in the metadata field, else `*`),
   * nearest first, with the fields asked for; [] when the index does not exist yet.
   */
  async knn(vector: number[], k: number, filter: string, withVector = false): Promise<RedisHit[]> {
    const { vectorKey, contentKey, metadataKey } = this.keys;
    const fields = [metadataKey, contentKey, SCORE_FIELD, ...(withVector ? [vectorKey] : [])];
    const query = `${filter} => [KNN ${k} @${vectorKey} $vector AS ${SCORE_FIELD}]`;
    const command: Arg[] = ["FT.SEARCH", this.index, query, "RETURN", fields.length, ...fields, "SORTBY", SCORE_FIELD];
    command.push("LIMIT", 0, k, "PARAMS", 2, "vector", float32Bytes(vector), "DIALECT", 2);
    const [reply] = await this.run("FT.SEARCH", [command], isUnknownIndex);
    if (!Array.isArray(reply)) return [];
    const hits: RedisHit[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) {
      const pairs = reply[i + 1];
      const map = new Map<string, Uint8Array>();
      if (Array.isArray(pairs))
        for (let j = 0; j + 1 < pairs.length; j += 2) {
          const v = pairs[j + 1];
          if (v instanceof Uint8Array) map.set(text(pairs[j]), v);
        }
      hits.push({ key: text(reply[i]), fields: map });
    }
    return hits;
  }
}
