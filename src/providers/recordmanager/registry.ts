// Record managers by Flowise node name. Flowise's SQL record managers all map to the D1 one.
import type { Db } from "../../env";
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { D1RecordManager } from "./d1";
import type { Cleanup } from "./indexing";

export interface RecordManagerSettings {
  recordManager: D1RecordManager;
  cleanup: Cleanup;
  sourceIdKey: string;
  forceUpdate: boolean;
}

// MySQLRecordManager is Flowise 3's spelling; mySQLRecordManager an older one flows may carry.
const NAMES = ["SQLiteRecordManager", "postgresRecordManager", "MySQLRecordManager", "mySQLRecordManager", "d1RecordManager"];
const CLEANUPS: Cleanup[] = ["none", "incremental", "full"];

export const supportedRecordManagers = (): string[] => [...NAMES].sort();

export function assertRecordManagerName(name: string): void {
  if (!NAMES.includes(name))
    throw fail("UNKNOWN_NODE", `Unknown record manager "${name}". Supported: ${supportedRecordManagers().join(", ")}`);
}

/** Builds the record manager; `defaultNamespace` is the document store's id (as Flowise's chatflowid). */
export function buildRecordManager(name: string, config: Record<string, unknown>, db: Db, defaultNamespace: string): RecordManagerSettings {
  assertRecordManagerName(name);
  const cleanup = (str(config.cleanup) ?? "none") as Cleanup;
  if (!CLEANUPS.includes(cleanup))
    throw fail("INVALID_FLOW", `Record manager cleanup must be one of ${CLEANUPS.join(", ")}; got "${cleanup}"`);
  const namespace = str(config.namespace) ?? defaultNamespace;
  if (namespace.length > 200) throw fail("INVALID_FLOW", "Record manager namespace must be at most 200 characters");
  return {
    recordManager: new D1RecordManager(db, namespace),
    cleanup,
    sourceIdKey: str(config.sourceIdKey) ?? "source",
    forceUpdate: config.forceUpdate === true || config.forceUpdate === "true",
  };
}
