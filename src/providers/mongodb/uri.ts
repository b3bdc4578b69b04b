// MongoDB connection strings: mongodb://[user:pass@]host[:port][,host…][/db][?options] and
// mongodb+srv://[user:pass@]host[/db][?options]. A +srv host is resolved through DNS over HTTPS
// (MONGODB_DOH_URL, else Cloudflare's JSON API): the SRV records of _mongodb._tcp.<host> give the
// hosts, its TXT record options (authSource, replicaSet) the URL's own options override; TLS is on
// unless the URL says tls=false. Every host is under the outbound policy's endpoint rule.
import { fail } from "../../errors";
import { type EndpointEnv, type EndpointPolicy, assertEndpointHostAllowed, checkEndpoint, endpointFetch } from "../../lib/outbound";
import { Deadline } from "../../lib/run-control";

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
const DEFAULT_PORT = 27017;
const DOH_TIMEOUT_MS = 10_000;

export interface MongoHost {
  host: string;
  port: number;
}

export interface MongoTarget {
  hosts: MongoHost[];
  tls: boolean;
  username?: string;
  password?: string;
  authSource: string;
  authMechanism?: string;
  replicaSet?: string;
  appName?: string;
}

export interface MongoUrlEnv extends EndpointEnv {
  MONGODB_DOH_URL?: string;
}

const truthy = (v: string | null | undefined) => (v == null ? undefined : v === "true" || v === "1");

function hostOf(raw: string, field: string): MongoHost {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(raw);
  if (!m) throw fail("INVALID_FLOW", `${field}: "${raw}" is not a host[:port]`);
  const port = m[2] ? Number(m[2]) : DEFAULT_PORT;
  if (port < 1 || port > 65535) throw fail("INVALID_FLOW", `${field}: ${raw} has no valid port`);
  return {
    host: decodeURIComponent(m[1])
      .replace(/^\[|\]$/g, "")
      .toLowerCase(),
    port,
  };
}

interface Parsed {
  srv: boolean;
  hosts: string[];
  username?: string;
  password?: string;
  db?: string;
  options: URLSearchParams;
}

function parse(url: string, field: string): Parsed {
  const m = /^(mongodb(?:\+srv)?):\/\/([^/?]*)(?:\/([^?]*))?(?:\?(.*))?$/.exec(url.trim());
  if (!m) throw fail("INVALID_FLOW", `${field} must be a mongodb:// or mongodb+srv:// connection string`);
  const [, scheme, authority, db, query] = m;
  const at = authority.lastIndexOf("@");
  const userinfo = at >= 0 ? authority.slice(0, at) : "";
  const hosts = (at >= 0 ? authority.slice(at + 1) : authority).split(",").filter(Boolean);
  if (!hosts.length) throw fail("INVALID_FLOW", `${field} names no host`);
  const colon = userinfo.indexOf(":");
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw fail("INVALID_FLOW", `${field}: the user or password is not URL-encoded (encode @, :, / and %)`);
    }
  };
  return {
    srv: scheme === "mongodb+srv",
    hosts,
    username: userinfo ? decode(colon >= 0 ? userinfo.slice(0, colon) : userinfo) : undefined,
    password: colon >= 0 ? decode(userinfo.slice(colon + 1)) : undefined,
    db: db ? decode(db) : undefined,
    options: new URLSearchParams(query ?? ""),
  };
}

/** The case-insensitive option `name` (URL options are case-insensitive), else the TXT record's. */
function optionOf(options: URLSearchParams, txt: URLSearchParams, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const source of [options, txt]) for (const [k, v] of source) if (k.toLowerCase() === lower) return v;
  return undefined;
}

interface DohAnswer {
  Status?: number;
  Answer?: Array<{ type?: number; data?: string }>;
}

async function dohQuery(name: string, type: "SRV" | "TXT", env: MongoUrlEnv, signal?: AbortSignal): Promise<string[]> {
  const base = env.MONGODB_DOH_URL || DEFAULT_DOH_URL;
  const policy = checkEndpoint(base, env.MONGODB_DOH_URL ? "MONGODB_DOH_URL" : "the DNS-over-HTTPS resolver", env);
  const u = new URL(base);
  u.searchParams.set("name", name);
  u.searchParams.set("type", type);
  const deadline = new Deadline(DOH_TIMEOUT_MS, signal);
  try {
    const res = await endpointFetch(u, { headers: { Accept: "application/dns-json" }, signal: deadline.signal }, policy);
    if (!res.ok) throw fail("UPSTREAM_FAILED", `DNS over HTTPS (${u.host}) failed for ${name} ${type}: HTTP ${res.status}`);
    const answer = (await deadline.race(res.json())) as DohAnswer;
    // 3: NXDOMAIN (no such name); other non-zero statuses are the resolver's failures.
    if (answer.Status && answer.Status !== 3)
      throw fail("UPSTREAM_FAILED", `DNS over HTTPS (${u.host}) failed for ${name} ${type}: DNS status ${answer.Status}`);
    const code = type === "SRV" ? 33 : 16;
    return (answer.Answer ?? []).filter((a) => a.type === code && typeof a.data === "string").map((a) => a.data as string);
  } catch (err) {
    if (deadline.timedOut) throw fail("TIMEOUT", `DNS over HTTPS (${u.host}) did not answer for ${name} within ${DOH_TIMEOUT_MS} ms`);
    throw err;
  } finally {
    deadline.done();
  }
}

/** A TXT record's text: its quoted strings joined. */
const txtText = (data: string) => (data.includes('"') ? [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join("") : data);

async function resolveSrv(host: string, service: string, env: MongoUrlEnv, field: string, signal?: AbortSignal) {
  if (host.includes(":")) throw fail("INVALID_FLOW", `${field}: a mongodb+srv:// host has no port`);
  if (host.split(".").length < 3) throw fail("INVALID_FLOW", `${field}: a mongodb+srv:// host needs at least three parts (cluster0.x.net)`);
  const [records, txt] = await Promise.all([dohQuery(`_${service}._tcp.${host}`, "SRV", env, signal), dohQuery(host, "TXT", env, signal)]);
  const hosts = records.map((r) => {
    const [, , port, target] = r.trim().split(/\s+/);
    return { host: (target ?? "").replace(/\.$/, "").toLowerCase(), port: Number(port) };
  });
  if (!hosts.length || hosts.some((h) => !h.host || !(h.port > 0 && h.port < 65536)))
    throw fail("UPSTREAM_FAILED", `${field}: DNS has no usable SRV records for _${service}._tcp.${host}`);
  if (txt.length > 1) throw fail("UPSTREAM_FAILED", `${field}: DNS has more than one TXT record for ${host}`);
  return { hosts, txt: new URLSearchParams(txt.length ? txtText(txt[0]) : "") };
}

/** Where a connection string points (SRV resolved) and how to log in; every host checked by the outbound policy. */
export async function resolveMongoUrl(url: string, field: string, env: MongoUrlEnv, signal?: AbortSignal): Promise<MongoTarget> {
  const p = parse(url, field);
  let hosts: MongoHost[];
  let txt = new URLSearchParams();
  if (p.srv) {
    if (p.hosts.length !== 1) throw fail("INVALID_FLOW", `${field}: a mongodb+srv:// string names exactly one host`);
    const resolved = await resolveSrv(
      p.hosts[0].toLowerCase(),
      optionOf(p.options, txt, "srvServiceName") ?? "mongodb",
      env,
      field,
      signal,
    );
    hosts = resolved.hosts;
    txt = resolved.txt;
    for (const k of txt.keys())
      if (!["authsource", "replicaset", "loadbalanced"].includes(k.toLowerCase()))
        throw fail("UPSTREAM_FAILED", `${field}: the TXT record of ${p.hosts[0]} sets ${k}, which only authSource and replicaSet may`);
  } else hosts = p.hosts.map((h) => hostOf(h, field));
  const policy: EndpointPolicy = { field, env };
  for (const h of hosts) assertEndpointHostAllowed(h.host, h.port, policy);
  const tls = truthy(optionOf(p.options, txt, "tls")) ?? truthy(optionOf(p.options, txt, "ssl")) ?? p.srv;
  return {
    hosts,
    tls,
    username: p.username,
    password: p.password,
    authSource: optionOf(p.options, txt, "authSource") ?? p.db ?? "admin",
    authMechanism: optionOf(p.options, txt, "authMechanism"),
    replicaSet: optionOf(p.options, txt, "replicaSet"),
    appName: optionOf(p.options, txt, "appName"),
  };
}

/** The hosts of a plain mongodb:// string, checked now (so a refused one is a 400 before anything runs). */
export function checkMongoUrl(url: string, field: string, env: MongoUrlEnv): void {
  const p = parse(url, field);
  if (p.srv) return;
  for (const h of p.hosts) {
    const { host, port } = hostOf(h, field);
    assertEndpointHostAllowed(host, port, { field, env });
  }
}
