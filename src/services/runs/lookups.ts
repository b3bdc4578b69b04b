// What a run reads before it starts — the flow, the stored variables its flowData names, the
// credentials its nodes name, the caller's API key, and the session's memory (its messages and, for
// an agentflow, its last execution) when the request names a session or continues a stored Responses
// API response (whose row is read too) — in one D1 batch of plain
// statements: one round trip on the way to the model call, from a replica (the request's session,
// lib/d1-session.ts), and no query builder on the hot path (Drizzle's build and row mapping cost more
// than the round trip itself when measured locally).
import type { openaiResponse } from "../../db/schema";
import type { Deps } from "../deps";
import type { ChatTurn } from "../../engine";
import { runBatch } from "../../providers/vectorstores/d1-json";
import { API_KEY_BY_HASH_SQL, type FoundKey, apiKeyHashOf, findApiKeyByToken, keyOfBatchRow } from "../apikeys";
import { PREVIOUS_EXECUTION_SQL } from "../executions";
import { type CredentialReader, type CredentialRow, FLOW_CREDENTIALS_SQL, credentialReader } from "./credentials";
import { type RunnableFlow, findRunnable } from "./flow";
import { FLOW_VARIABLES_SQL, type VariableRow, variablesOf, variablesQuery } from "./vars";

/** What is read beside the flow: stored variables, a credential reader, the named session's memory. */
export interface Prefetched {
  vars: Record<string, string>;
  getCredential: CredentialReader;
  /** Read when the request named a session (`lookUpRun`'s `session`) and the batch succeeded. */
  session?: SessionMemory;
}

/** A session's stored messages (oldest first, at most 10,000) and its newest execution's data (an agentflow's). */
export interface SessionMemory {
  id: string;
  history: ChatTurn[];
  previousExecution?: string;
}

/**
 * The session whose memory a run's batch reads: named by the request, or the chat a stored Responses
 * API response belongs to (previous_response_id), whose row is read in the same batch — and, when
 * `memory`, its session's memory (the session is the row's, so SQL finds it in the same round trip).
 */
export type SessionAsked = string | { responseId: string; memory: boolean };

/** A stored Responses API response's row (services/openai/responses-store.ts keeps them). */
export type ResponseRow = typeof openaiResponse.$inferSelect;

const RESPONSE_SQL = "SELECT * FROM openai_response WHERE id = ?1";
// ?2 of the memory statements when the session is a stored response's
const RESPONSE_SESSION = "(SELECT sessionId FROM openai_response WHERE id = ?2)";

// As services/runs/history.ts reads them (?1 the flow, ?2 the session); the previous execution's as the executions read it.
// fileUploads and chatId: where an earlier turn's images are (engine/core/past-images.ts; read only for a model taking images).
const HISTORY_SQL =
  "SELECT role, content, fileUploads, chatId FROM chat_message WHERE chatflowid = ?1 AND sessionId = ?2 " +
  "ORDER BY createdDate DESC LIMIT 10000";

export interface RunLookups {
  /** The chatflow (or an assistant made into one); rejects with 404 when the id names neither. */
  flow: Promise<RunnableFlow>;
  prefetched: Promise<Prefetched>;
  /** The API key a bearer token is: from the batch for the token it was given, else its own read. */
  findKey(token: string): Promise<FoundKey | null>;
  /** The stored response a `SessionAsked` named: null when there is none, undefined when the batch failed or named none. */
  continued?: Promise<ResponseRow | null | undefined>;
}

const FLOW_SQL = "SELECT * FROM chat_flow WHERE id = ?1";

type FlowRow = Omit<RunnableFlow, "deployed" | "isPublic"> & { deployed: number | boolean; isPublic: number | boolean };

/** A raw chat_flow row as Drizzle would map it (SQLite keeps booleans as 0/1). */
const flowOf = (row: FlowRow): RunnableFlow => ({ ...row, deployed: !!row.deployed, isPublic: !!row.isPublic });

/** Which flow the batch reads: by id, or the one whose name is LIKE a pattern (services/openai/models.ts). */
interface FlowSelector {
  flowSql: string;
  /** ?1 of every statement. */
  param: string;
  /** The statements keyed by a flow id (?1), as this selector runs them. */
  keyed(sql: string): string;
}

const byId = (id: string): FlowSelector => ({ flowSql: FLOW_SQL, param: id, keyed: (sql) => sql });

// A flow named LIKE ?1, or with a character whose lower case is ASCII in JavaScript but not in SQLite
// (KELVIN SIGN, LATIN CAPITAL LETTER I WITH DOT ABOVE): a name LIKE cannot vouch for, always a candidate.
const NAMED = "(name LIKE ?1 OR name GLOB '*[\u212A\u0130]*')";
// The flow named so when it is the only one (else NULL: the keyed statements find nothing of any flow).
const ONLY_NAMED = `(SELECT id FROM chat_flow WHERE ${NAMED} AND (SELECT count(*) FROM chat_flow WHERE ${NAMED}) = 1)`;
const byName = (pattern: string): FlowSelector => ({
  flowSql: `SELECT * FROM chat_flow WHERE ${NAMED} LIMIT 2`,
  param: pattern,
  keyed: (sql) => sql.replaceAll("?1", ONLY_NAMED),
});

/**
 * `token`: the request's bearer token, if any; a token that may be an API key is looked up in the
 * batch. `session`: the session the request names, whose memory is read in the batch too (a run
 * that finds it there reads no memory of its own before the model).
 */
export function lookUpRun(deps: Deps<"db" | "env">, id: string, token?: string, session?: SessionAsked): RunLookups {
  const { rows, ...rest } = batchedLookUps(deps, byId(id), token, session);
  const flow = rows.then((found) => (found?.[0] ? flowOf(found[0]) : findRunnable(deps, id)));
  flow.catch(() => {}); // awaited by the caller, maybe after another check failed first
  return { flow, ...rest };
}

/**
 * The look-ups of a run of the flow whose name is LIKE `pattern` (SQL, case-insensitive for ASCII),
 * in the same one batch: `candidates` are at most two such flows (undefined: the batch failed). The
 * look-ups are that flow's when there is exactly one; otherwise the caller finds the flow its own way.
 */
export function lookUpNamedRun(
  deps: Deps<"db" | "env">,
  pattern: string,
  token?: string,
  session?: SessionAsked,
): { candidates: Promise<RunnableFlow[] | undefined>; lookups: RunLookups } {
  const { rows, ...rest } = batchedLookUps(deps, byName(pattern), token, session);
  const candidates = rows.then((found) => found?.map(flowOf));
  const flow = candidates.then((found) => {
    if (found?.length !== 1) throw new Error("No single flow by that name: its look-ups are not in the batch");
    return found[0];
  });
  flow.catch(() => {});
  return { candidates, lookups: { flow, ...rest } };
}

function batchedLookUps(deps: Deps<"db" | "env">, select: FlowSelector, token?: string, session?: SessionAsked) {
  const { db, env } = deps;
  const keyHash = token ? apiKeyHashOf(token) : Promise.resolve(undefined);
  const continued = typeof session === "object" ? session.responseId : undefined;
  // The memory statements' ?2: the named session, or the stored response whose session it is.
  const memory =
    typeof session === "string"
      ? { param: session, sql: (sql: string) => sql }
      : session?.memory
        ? { param: session.responseId, sql: (sql: string) => sql.replaceAll("?2", RESPONSE_SESSION) }
        : undefined;
  const statements = (hash: string | undefined) => [
    { sql: select.flowSql, params: [select.param] },
    ...[FLOW_VARIABLES_SQL, FLOW_CREDENTIALS_SQL].map((sql) => ({ sql: select.keyed(sql), params: [select.param] })),
    ...(memory
      ? [HISTORY_SQL, PREVIOUS_EXECUTION_SQL].map((sql) => ({ sql: select.keyed(memory.sql(sql)), params: [select.param, memory.param] }))
      : []),
    ...(continued ? [{ sql: RESPONSE_SQL, params: [continued] }] : []),
    ...(hash ? [{ sql: API_KEY_BY_HASH_SQL, params: [hash] }] : []),
  ];
  const RESPONSE = memory ? 5 : 3;
  const KEY = RESPONSE + (continued ? 1 : 0); // the key's statement comes last
  const batch = keyHash.then((hash) => runBatch(db, statements(hash)));
  // undefined: the batch failed as a whole (one statement refused)
  const rows = batch.then(
    ([flows]) => flows.results as FlowRow[],
    () => undefined,
  );
  const responseOf = (results: Awaited<typeof batch>) => (results[RESPONSE]?.results[0] as ResponseRow | undefined) ?? null;
  const prefetched = batch.then(
    (results): Prefetched => {
      const [, vars, credentials, history, executions] = results;
      const sessionId = typeof session === "string" ? session : responseOf(results)?.sessionId;
      return {
        vars: variablesOf(vars.results as VariableRow[], env),
        getCredential: credentialReader(deps, credentials.results as CredentialRow[]),
        session:
          memory && sessionId
            ? {
                id: sessionId,
                history: (history.results as ChatTurn[]).reverse(),
                previousExecution: (executions.results[0] as { executionData?: string } | undefined)?.executionData,
              }
            : undefined,
      };
    },
    // The batch failed as a whole: the variables on their own, credentials one by one.
    async () => ({
      vars: variablesOf(await variablesQuery(db).all(), env),
      getCredential: credentialReader(deps, []),
    }),
  );
  const findKey = async (asked: string) => {
    const hash = asked === token ? await keyHash : undefined;
    if (!hash) return findApiKeyByToken(deps, asked);
    const rows = await batch.then(
      (results) => results[KEY]?.results,
      () => undefined,
    );
    return rows ? keyOfBatchRow(rows[0] as Parameters<typeof keyOfBatchRow>[0], hash) : findApiKeyByToken(deps, asked);
  };
  prefetched.catch(() => {});
  const responseRow = continued ? batch.then(responseOf, () => undefined) : undefined;
  return { rows, prefetched, findKey, ...(responseRow ? { continued: responseRow } : {}) };
}

// Whether a flow's run reads its session's memory (an agentflow always does; a chatflow when a memory
// node is in its graph), as this isolate last prepared it: a flow known not to read it does not have
// it read speculatively. A flow not seen yet has it read.
const READS_MEMORY_KEPT = 1000;
const readsMemory = new Map<string, boolean>();

export function noteReadsMemory(flowId: string, reads: boolean): void {
  readsMemory.delete(flowId);
  readsMemory.set(flowId, reads);
  if (readsMemory.size > READS_MEMORY_KEPT) readsMemory.delete(readsMemory.keys().next().value as string);
}

export const mayReadMemory = (flowId: string): boolean => readsMemory.get(flowId) ?? true;
