// A session's messages in Redis, laid out as Flowise's Redis-backed memories keep them, so a
// session started on Flowise goes on here: a list under the session id, newest first (LPUSH), each
// item LangChain's stored message JSON ({"type":"human"|"ai","data":{"content":…}}).
import type { RespValue } from "./resp";
import { RespError } from "./resp";
import type { RedisCommands } from "./types";
import { fail } from "../../../errors";

export type StoredRole = "userMessage" | "apiMessage";

export interface RedisHistoryOptions {
  client: RedisCommands;
  key: string;
  /** Only the most recent this many messages (unset: all). */
  windowSize?: number;
  /** Seconds until the session expires, renewed on every write (unset: never). */
  ttl?: number;
}

const TYPES: Record<string, StoredRole> = { human: "userMessage", ai: "apiMessage" };

const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (typeof p === "string" ? p : typeof p?.text === "string" ? p.text : "")).join("")
      : "";

const stored = (type: "human" | "ai", content: string) =>
  JSON.stringify({ type, data: { content, additional_kwargs: {}, response_metadata: {} } });

function check(client: RedisCommands, replies: RespValue[]): RespValue[] {
  for (const r of replies) if (r instanceof RespError) throw fail("UPSTREAM_FAILED", `${client.label} answered an error: ${r.message}`);
  return replies;
}

/** The session's messages, oldest first (items that are not LangChain messages are skipped). */
export async function loadRedisHistory(o: RedisHistoryOptions): Promise<Array<{ role: StoredRole; content: string }>> {
  const stop = o.windowSize && o.windowSize > 0 ? o.windowSize - 1 : -1;
  const [items] = check(o.client, await o.client.pipeline([["LRANGE", o.key, 0, stop]]));
  const list = Array.isArray(items) ? items : [];
  const out: Array<{ role: StoredRole; content: string }> = [];
  for (const item of list.reverse()) {
    if (typeof item !== "string") continue;
    try {
      const m = JSON.parse(item) as { type?: string; data?: { content?: unknown } };
      const role = TYPES[m.type ?? ""];
      if (role) out.push({ role, content: contentText(m.data?.content) });
    } catch {
      // not a stored message: another program's item in the same list
    }
  }
  return out;
}

/** Appends an exchange (question, then answer) in one LPUSH; renews the TTL in the same round trip. */
export async function saveRedisExchange(o: RedisHistoryOptions, question: string, answer: string): Promise<void> {
  const commands: Array<Array<string | number>> = [["LPUSH", o.key, stored("human", question), stored("ai", answer)]];
  // EXPIRE takes whole seconds, and 0 deletes the key at once: a fraction under one second keeps it for one.
  if (o.ttl && o.ttl > 0) commands.push(["EXPIRE", o.key, Math.max(1, Math.floor(o.ttl))]);
  check(o.client, await o.client.pipeline(commands));
}
