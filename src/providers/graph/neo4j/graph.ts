// A Neo4j graph as LangChain's Neo4jGraph offers it to GraphCypherQAChain: `initialize` connects and
// reads the schema (./schema.ts), `getSchema()` words it, `query(cypher, params)` answers records as
// plain objects (nodes and relationships as their properties, a path as its segments' properties,
// integers as decimal text, as LangChain converts them). One Bolt connection per call (./bolt.ts),
// its host under the outbound policy; each step (login, each query) under a deadline of the node's
// timeout plus a grace (the timeout is also Neo4j's transaction timeout). A refused login or
// unreachable server is a 502, silence a 504, never naming the password; a query Neo4j refuses is a
// Neo4jFailure for the caller to report.
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { type EndpointPolicy, assertEndpointHostAllowed } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { Deadline, RunAborted } from "../../../lib/run-control";
import { type BoltAddress, BoltConnection, Neo4jFailure, addressOfUrl } from "./bolt";
import { Node, Path, Relationship } from "./packstream";
import {
  BASE_ENTITY_LABEL,
  EXCLUDED_LABELS,
  EXCLUDED_RELS,
  EXHAUSTIVE_SEARCH_LIMIT,
  NODE_PROPERTIES_QUERY,
  REL_PROPERTIES_QUERY,
  REL_QUERY,
  SAMPLE_QUERY,
  type PropertyInfo,
  type StructuredSchema,
  enhancedSchemaCypher,
  formatSchema,
} from "./schema";

export { Neo4jFailure } from "./bolt";

/** How long a step may take when the node sets no timeout. */
export const NEO4J_TIMEOUT_MS = 30_000;
/** Added to the node's timeout (Neo4j's own transaction timeout) before we stop waiting. */
const GRACE_MS = 2_000;
const USER_AGENT = "edgeflow/1.0";

export interface Neo4jGraphOptions {
  url: string;
  username: string;
  password: string;
  database?: string;
  /** Neo4j's transaction timeout (ms); also bounds our wait. */
  timeoutMs?: number;
  enhancedSchema?: boolean;
  /** Where the URL came from, for the outbound policy's refusal ("neo4jApi credential url"). */
  policy: EndpointPolicy;
  signal?: AbortSignal;
}

type Row = Record<string, unknown>;
type Run = (query: string, params?: Record<string, unknown>) => Promise<Row[]>;

/** A value as LangChain's Neo4jGraph hands it on. */
function plain(value: unknown): unknown {
  if (value instanceof Node || value instanceof Relationship) return plain(value.properties);
  if (value instanceof Path) {
    if (!value.segments.length) return [plain(value.start)];
    return value.segments.flatMap((s) => [plain(s.start), plain(s.relationship), plain(s.end)]);
  }
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Uint8Array) return Array.from(value);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

export class Neo4jGraph {
  readonly kind = "neo4jGraph";
  readonly label: string;
  readonly database: string;
  private readonly address: BoltAddress;
  private schema = "";
  structuredSchema: StructuredSchema = { nodeProps: {}, relProps: {}, relationships: [] };

  constructor(private readonly o: Neo4jGraphOptions) {
    try {
      this.address = addressOfUrl(o.url);
    } catch (err) {
      throw fail("INVALID_FLOW", `The ${o.policy.field} ${errorMessage(err)}`);
    }
    assertEndpointHostAllowed(this.address.hostname, this.address.port, o.policy);
    this.label = `Neo4j at ${this.address.hostname}:${this.address.port}`;
    this.database = o.database || "neo4j";
  }

  /** A graph with its schema read (LangChain's Neo4jGraph.initialize). */
  static async initialize(o: Neo4jGraphOptions): Promise<Neo4jGraph> {
    const graph = new Neo4jGraph(o);
    await graph.refreshSchema();
    return graph;
  }

  getSchema(): string {
    return this.schema;
  }

  /** Runs one query; Neo4j's refusal is thrown as a Neo4jFailure (code, message). */
  query(cypher: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.session((run) => run(cypher, params));
  }

  async refreshSchema(): Promise<void> {
    try {
      await this.session(async (run) => {
        const outputs = async (query: string, excluded: string[]) =>
          (await run(query, { EXCLUDED_LABELS: excluded })).map((r) => r.output as Row);
        const labels = [...EXCLUDED_LABELS, BASE_ENTITY_LABEL];
        const nodeProps = await outputs(NODE_PROPERTIES_QUERY, labels);
        const relProps = await outputs(REL_PROPERTIES_QUERY, EXCLUDED_RELS);
        const relationships = await outputs(REL_QUERY, labels);
        this.structuredSchema = {
          nodeProps: Object.fromEntries(nodeProps.map((el) => [String(el.labels), el.properties as PropertyInfo[]])),
          relProps: Object.fromEntries(relProps.map((el) => [String(el.type), el.properties as PropertyInfo[]])),
          relationships: relationships as StructuredSchema["relationships"],
        };
        if (this.o.enhancedSchema) await this.enhance(run);
      });
    } catch (err) {
      if (!(err instanceof Neo4jFailure)) throw err;
      if (err.code === "Neo.ClientError.Procedure.ProcedureNotFound")
        throw fail(
          "UPSTREAM_FAILED",
          `${this.label}: Could not use APOC procedures. Please ensure the APOC plugin is installed in Neo4j and that ` +
            "'apoc.meta.data()' is allowed in Neo4j configuration.",
        );
      throw fail("UPSTREAM_FAILED", `${this.label} could not read the schema: ${err.code}: ${this.scrub(err.message)}`);
    }
    this.schema = formatSchema(this.structuredSchema, !!this.o.enhancedSchema);
  }

  /** Example values, ranges and list sizes per label and relationship type. */
  private async enhance(run: Run): Promise<void> {
    const [sample] = await run(SAMPLE_QUERY);
    const kinds: Array<[unknown, Record<string, PropertyInfo[]>, string[], boolean]> = [
      [sample?.nodes, this.structuredSchema.nodeProps, EXCLUDED_LABELS, false],
      [sample?.relationships, this.structuredSchema.relProps, EXCLUDED_RELS, true],
    ];
    for (const [list, propsOf, excluded, relationship] of kinds) {
      for (const item of (Array.isArray(list) ? list : []) as Row[]) {
        const name = String(item.name);
        const props = propsOf[name];
        if (excluded.includes(name) || !props) continue;
        const exhaustive = Number(item.count) < EXHAUSTIVE_SEARCH_LIMIT;
        if (props.every((p) => ["BOOLEAN", "POINT", "DURATION"].includes(p.type))) continue;
        const [row] = await run(enhancedSchemaCypher(name, props, exhaustive, relationship));
        const found = (row?.output ?? {}) as Record<string, Partial<PropertyInfo>>;
        for (const p of props) if (found[p.property]) Object.assign(p, found[p.property]);
      }
    }
  }

  private scrub(text: string): string {
    return redact(text, [this.o.password]);
  }

  /** One connection: login, then `work`; every step under its own deadline. */
  private async session<T>(work: (run: Run) => Promise<T>): Promise<T> {
    const ms = (this.o.timeoutMs ?? NEO4J_TIMEOUT_MS) + GRACE_MS;
    const deadline = new Deadline(ms, this.o.signal);
    let conn: BoltConnection | undefined;
    try {
      try {
        conn = await BoltConnection.open(
          this.address,
          { username: this.o.username, password: this.o.password, userAgent: USER_AGENT },
          deadline,
        );
      } catch (err) {
        if (err instanceof Neo4jFailure)
          throw fail("UPSTREAM_FAILED", `${this.label} refused the login of ${this.o.username}: ${err.code}: ${this.scrub(err.message)}`);
        throw err;
      }
      const open = conn;
      const extra: Record<string, unknown> = { db: this.database };
      if (this.o.timeoutMs) extra.tx_timeout = Math.round(this.o.timeoutMs);
      return await work(async (query, params = {}) => {
        deadline.touch();
        const { fields, records } = await open.run(query, params, extra);
        return records.map((values) => Object.fromEntries(fields.map((f, i) => [f, plain(values[i])])));
      });
    } catch (err) {
      if (deadline.aborted) throw new RunAborted();
      if (deadline.timedOut) throw fail("TIMEOUT", `${this.label} did not answer within ${ms} ms`);
      if (err instanceof Neo4jFailure) err.message = this.scrub(err.message);
      if (err instanceof ApiError || err instanceof Neo4jFailure) throw err;
      throw fail("UPSTREAM_FAILED", `${this.label} cannot be reached or failed: ${this.scrub(errorMessage(err))}`);
    } finally {
      deadline.done();
      await conn?.close();
    }
  }
}
