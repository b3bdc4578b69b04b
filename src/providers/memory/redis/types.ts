// What the Redis-backed memories need from a Redis: run a few commands in order (one round trip).
import type { RespValue } from "./resp";

export interface RedisCommands {
  /** Runs the commands as one pipeline; answers each reply (an error reply as a RespError value). */
  pipeline(commands: Array<Array<string | number>>): Promise<RespValue[]>;
  /** How messages name it: "Redis at host:port", "Upstash Redis at host". */
  readonly label: string;
}

export const REDIS_TIMEOUT_MS = 10_000;
