// A MongoDB collection from Flowise's mongoDBUrlApi credential (mongoDBConnectUrl) and a node's
// databaseName and collectionName inputs. A mongodb:// host the outbound policy refuses is a 400
// now; a mongodb+srv:// one once DNS has named its hosts (the first call).
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { MongoClient, MongoCollection } from "./client";
import type { MongoUrlEnv } from "./uri";

export { MongoClient, MongoCollection } from "./client";
export type { BoundCollection, BsonDocument } from "./client";

export const MONGODB_URL_FIELD = "mongoDBUrlApi credential mongoDBConnectUrl";

export interface MongoNodeOptions {
  /** The node, named in a configuration error. */
  label: string;
  databaseName: unknown;
  collectionName: unknown;
  env: MongoUrlEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The node's database and collection names, checked (a 400 saying which is missing). */
export function mongoNames(o: Pick<MongoNodeOptions, "label" | "databaseName" | "collectionName">): { db: string; collection: string } {
  const db = str(o.databaseName);
  const collection = str(o.collectionName);
  if (!db || !collection) throw fail("INVALID_FLOW", `${o.label} needs its Database (databaseName) and Collection Name (collectionName)`);
  if (/[/\\. "$\0]/.test(db)) throw fail("INVALID_FLOW", `${o.label} databaseName may not hold / \\ . " $ or blanks`);
  if (collection.startsWith("system.") || collection.includes("$") || collection.includes("\0"))
    throw fail("INVALID_FLOW", `${o.label} collectionName may not hold $ nor start with system.`);
  return { db, collection };
}

export function mongoCollection(credential: Record<string, unknown>, o: MongoNodeOptions): MongoCollection {
  const { db, collection } = mongoNames(o);
  const url = str(credential.mongoDBConnectUrl);
  if (!url) throw fail("MISSING_CREDENTIAL", `${o.label} is not configured: connect a mongoDBUrlApi credential with mongoDBConnectUrl`);
  const client = new MongoClient({ url, field: MONGODB_URL_FIELD, env: o.env, timeoutMs: o.timeoutMs, signal: o.signal });
  return new MongoCollection(client, db, collection);
}
