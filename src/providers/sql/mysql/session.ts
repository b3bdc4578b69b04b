// A MySQL session: connect, run the work, COM_QUIT, all under one deadline (closing the connection
// when it passes or the run is aborted). Failures to connect or authenticate are 502s with the
// server's own message (the password redacted: MySQL never echoes it, but a proxy might), no answer
// in time a 504, both naming the server; an ERR a statement gets is thrown on as MySqlError for the
// caller to judge (the SQL chain shows it to the model, a vector store fails with it).
import { ApiError, fail } from "../../../errors";
import { errorMessage } from "../../../lib/error-message";
import { redact } from "../../../lib/redact";
import { Deadline, RunAborted } from "../../../lib/run-control";
import { MySqlConnection, MySqlError, type MySqlOptions } from "./connection";

export { MySqlConnection, MySqlError, type MySqlOptions } from "./connection";
export { escapeId, escapeValue, format, type SqlValue } from "./escape";

export interface SessionSettings {
  /** "MySQL database at host:3306/db", "SingleStore at host:3306/db": named in every failure. */
  label: string;
  /** The work's deadline, after connecting. */
  timeoutMs: number;
  /** Connecting and authenticating (default: timeoutMs). */
  connectTimeoutMs?: number;
  signal?: AbortSignal;
}

/** "MySQL at host:port/db" as a failure names it. */
export const labelOf = (service: string, o: MySqlOptions) => `${service} at ${o.host}:${o.port}${o.database ? `/${o.database}` : ""}`;

export async function withMySql<T>(o: MySqlOptions, s: SessionSettings, work: (c: MySqlConnection) => Promise<T>): Promise<T> {
  const conn = new MySqlConnection(o);
  // Connecting, then the work, each under its own deadline; closing the socket ends whatever read is pending.
  let ms = s.connectTimeoutMs ?? s.timeoutMs;
  let deadline = new Deadline(ms, s.signal);
  const closeOnAbort = () => conn.close();
  deadline.signal.addEventListener("abort", closeOnAbort, { once: true });
  try {
    await deadline.race(conn.open());
    deadline.done();
    ms = s.timeoutMs;
    deadline = new Deadline(ms, s.signal);
    deadline.signal.addEventListener("abort", closeOnAbort, { once: true });
    return await deadline.race(work(conn));
  } catch (err) {
    throw failure(err, o, s, deadline, ms);
  } finally {
    deadline.done();
    conn.close();
  }
}

function failure(err: unknown, o: MySqlOptions, s: SessionSettings, deadline: Deadline, ms: number): Error {
  if (deadline.aborted) return new RunAborted();
  if (deadline.timedOut) return fail("TIMEOUT", `${s.label} did not answer within ${Math.round(ms)} ms`);
  if (err instanceof ApiError) return err;
  const secrets = o.password ? [o.password] : [];
  if (err instanceof MySqlError) {
    if (err.handshake) return fail("UPSTREAM_FAILED", `${s.label} refused the connection: ${redact(err.message, secrets)} (${err.errno})`);
    return new MySqlError(err.errno, err.sqlState, redact(err.message, secrets));
  }
  return fail("UPSTREAM_FAILED", `${s.label} cannot be reached: ${redact(errorMessage(err), secrets)}`);
}
