// Upstash Redis over its REST API: POST {url}/pipeline with a JSON array of commands and the REST
// token as a bearer token; each reply is {result} or {error}.
import { ApiError, fail } from "../../../errors";
import { type EndpointPolicy, endpointFetch } from "../../../lib/outbound";
import { redact } from "../../../lib/redact";
import { RespError, type RespValue } from "./resp";
import { REDIS_TIMEOUT_MS, type RedisCommands } from "./types";
import { errorMessage } from "../../../lib/error-message";

export class UpstashRest implements RedisCommands {
  readonly label: string;
  private readonly url: string;
  /** `policy`: the outbound policy the URL is under (checkEndpoint's answer: the caller checks it first). */
  constructor(
    url: string,
    private readonly token: string,
    private readonly policy: EndpointPolicy,
    private readonly timeoutMs = REDIS_TIMEOUT_MS,
  ) {
    this.url = url.replace(/\/+$/, "");
    this.label = `Upstash Redis at ${new URL(this.url).host}`;
  }

  async pipeline(commands: Array<Array<string | number>>): Promise<RespValue[]> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await endpointFetch(
        `${this.url}/pipeline`,
        {
          method: "POST",
          headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
          body: JSON.stringify(commands.map((c) => c.map(String))),
          signal,
        },
        this.policy,
      );
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (!res.ok) {
        const detail =
          body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
            ? (body as { error: string }).error
            : res.statusText;
        throw fail("UPSTREAM_FAILED", `${this.label} answered ${res.status}: ${redact(detail, [this.token])}`);
      }
      if (!Array.isArray(body) || body.length !== commands.length)
        throw fail("UPSTREAM_FAILED", `${this.label} answered something that is not one reply per command`);
      return body.map((r: { result?: RespValue; error?: string }) =>
        typeof r?.error === "string" ? new RespError(r.error) : (r?.result ?? null),
      );
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (signal.aborted) throw fail("TIMEOUT", `${this.label} did not answer within ${Math.round(this.timeoutMs)} ms`);
      throw fail("UPSTREAM_FAILED", `${this.label} is unreachable: ${redact(errorMessage(err), [this.token])}`);
    }
  }
}
