// A simulated planet for the benchmark: D1_SIMULATED_RTT_MS (the primary) and
// D1_SIMULATED_REPLICA_RTT_MS (a replica) add their delay to every D1 round trip of that kind, and
// each request counts its round trips, so what a deployment far from D1's primary pays shows
// locally, where every round trip costs about a millisecond. Development only: anywhere else the
// vars are refused (every request answers 500 naming them), so a deployment never slows itself.
import type { Env } from "../env";
import { ApiError } from "../errors";

export interface Simulation {
  primaryMs: number;
  replicaMs: number;
}

export type TripKind = "primary" | "replica";
export interface Trips {
  primary: number;
  replica: number;
}

const VARS = ["D1_SIMULATED_RTT_MS", "D1_SIMULATED_REPLICA_RTT_MS"] as const;
const MAX_MS = 10_000;

/**
 * The simulation the environment asks for (undefined: none). Throws a 500 naming the var when one
 * is set outside ENVIRONMENT=development, or is not a whole number of ms up to 10,000.
 */
export function simulationOf(env: Pick<Env, "ENVIRONMENT" | (typeof VARS)[number]>): Simulation | undefined {
  if (known.has(env)) return known.get(env) ?? undefined;
  const sim = readSimulation(env);
  known.set(env, sim ?? null);
  return sim;
}

// Per environment object (an isolate keeps the same one): read once, a refusal thrown every time.
const known = new WeakMap<object, Simulation | null>();

function readSimulation(env: Pick<Env, "ENVIRONMENT" | (typeof VARS)[number]>): Simulation | undefined {
  const set = VARS.filter((name) => env[name] !== undefined && env[name] !== "");
  if (!set.length) return undefined;
  if (env.ENVIRONMENT !== "development") {
    throw new ApiError(
      "INTERNAL",
      `The worker is misconfigured: ${set.join(" and ")} ${set.length > 1 ? "are" : "is"} set, but the simulated ` +
        `D1 round trips are for ENVIRONMENT=development only (ENVIRONMENT is "${env.ENVIRONMENT ?? ""}"); ` +
        `remove ${set.length > 1 ? "them" : "it"}`,
    );
  }
  const [primaryMs, replicaMs] = VARS.map((name) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return 0;
    const ms = Number(raw);
    if (!Number.isInteger(ms) || ms < 0 || ms > MAX_MS) {
      throw new ApiError(
        "INTERNAL",
        `The worker is misconfigured: ${name} must be a whole number of milliseconds from 0 to ${MAX_MS}, got "${raw}"`,
      );
    }
    return ms;
  });
  return { primaryMs, replicaMs };
}

/** A request's round trips: counted as each one completes, and their counts at the marks it reaches. */
export class D1Trace {
  readonly done: Trips = { primary: 0, replica: 0 };
  /** run: when the flow's runtime took over (services/runs), the first run of the request only. */
  readonly marks: { head?: Trips; run?: Trips; firstToken?: Trips; end?: Trips } = {};

  count(kind: TripKind): void {
    this.done[kind]++;
  }

  /** Keeps the counts as they are now under `name` (the first time only). */
  mark(name: keyof D1Trace["marks"]): void {
    this.marks[name] ??= { ...this.done };
  }
}

// The last traces by request id, for the benchmark's look-up (GET /api/v1/__d1-trace/{requestId}).
const traces = new Map<string, D1Trace>();
const KEPT = 2000;

export function newTrace(requestId: string): D1Trace {
  const trace = new D1Trace();
  traces.set(requestId, trace);
  if (traces.size > KEPT) traces.delete(traces.keys().next().value as string);
  return trace;
}

export const traceOf = (requestId: string): D1Trace | undefined => traces.get(requestId);

const READ = /^\s*(?:select|pragma|explain)\b/i;
// A WITH … SELECT reads; a WITH … INSERT/UPDATE/DELETE writes.
const isWrite = (sql: string): boolean =>
  !READ.test(sql) && !(/^\s*with\b/i.test(sql) && !/\b(?:insert|update|delete|replace)\b/i.test(sql));

const wait = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/** The wrapped D1 client's state: which kind of round trip the next read pays, and where the count goes. */
class Planet {
  /**
   * `primary`: a primary session (first-primary), or one whose write has landed: D1 sends its later
   * reads where that write is visible; the simulation charges them the primary's round trip (the safe side).
   */
  constructor(
    private readonly sim: Simulation,
    private readonly trace: D1Trace,
    private primary: boolean,
  ) {}

  /**
   * One round trip: the whole delay before the work (one timer: workerd rounds each one up, so two
   * halves would cost more than the round trip). A write pins the session's later reads to the
   * primary once it has landed (a read sent while it is in flight need not see it).
   */
  async trip<T>(write: boolean, work: () => Promise<T>): Promise<T> {
    const kind: TripKind = write || this.primary ? "primary" : "replica";
    await wait(kind === "primary" ? this.sim.primaryMs : this.sim.replicaMs);
    try {
      return await work();
    } finally {
      if (write) this.primary = true;
      this.trace.count(kind);
    }
  }
}

class SimulatedStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    readonly sql: string,
    private readonly planet: Planet,
  ) {}

  bind(...values: unknown[]): SimulatedStatement {
    return new SimulatedStatement(this.inner.bind(...values), this.sql, this.planet);
  }

  first<T>(column?: string): Promise<T | null> {
    return this.planet.trip(isWrite(this.sql), () => (column === undefined ? this.inner.first<T>() : this.inner.first<T>(column)));
  }

  all<T>(): Promise<D1Result<T>> {
    return this.planet.trip(isWrite(this.sql), () => this.inner.all<T>());
  }

  run<T>(): Promise<D1Result<T>> {
    return this.planet.trip(isWrite(this.sql), () => this.inner.run<T>());
  }

  raw<T>(options?: { columnNames?: boolean }): Promise<unknown> {
    return this.planet.trip(isWrite(this.sql), () => this.inner.raw<T>(options as { columnNames: true }));
  }
}

/** What the worker calls on a D1 client (a binding or a session), here delayed and counted. */
export type D1Client = Pick<D1DatabaseSession, "prepare" | "batch">;

/**
 * `session` wrapped: every statement, batch or exec is one round trip of its kind, delayed by the
 * simulation and counted into `trace`. `primaryFirst`: the session was opened with first-primary.
 */
export function simulateD1(session: D1Client, sim: Simulation, trace: D1Trace, primaryFirst: boolean): D1Client {
  const planet = new Planet(sim, trace, primaryFirst);
  const wrapped = {
    prepare: (sql: string) => new SimulatedStatement(session.prepare(sql), sql, planet),
    batch: (statements: SimulatedStatement[]) =>
      planet.trip(
        statements.some((s) => isWrite(s.sql)),
        () => session.batch(statements.map((s) => s.inner)),
      ),
  };
  return wrapped as unknown as D1Client;
}
