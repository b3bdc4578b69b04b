// The outbound URL policy of API.md ("Models and outbound requests"): a URL that arrives with a
// request or a document (a custom tool's fetch, a web loader's page) must be http(s) and must not
// point at loopback, private, link-local, metadata or otherwise non-public addresses, unless the
// OUTBOUND_ALLOW var lists its host. Endpoints the chatflow's owner configured (model URLs) are not
// subject to it.
//
// Literal addresses are checked in every notation the URL parser accepts (127.1, 0x7f.0.0.1,
// 2130706433, [::ffff:127.0.0.1], …: WHATWG URL parsing normalises IPv4 forms, IPv6 is checked
// here). Workers have no DNS API, so names are not resolved; names that are local by definition
// (localhost, *.localhost, *.local, *.internal, *.home.arpa, dotless names, cloud metadata names)
// and wildcard-DNS names that embed a non-public IPv4 (127.0.0.1.nip.io, 10-0-0-1.sslip.io) are
// refused. Redirects are followed by outboundFetch one hop at a time, each hop checked again.
import { ApiError } from "../errors";
import { listVar } from "../env";

/** A URL the policy refuses. A 400 (ApiError) so a route can answer it as it is. */
export class OutboundRefused extends ApiError {
  constructor(message: string) {
    super(400, message);
    this.name = "OutboundRefused";
  }
}

export interface OutboundEnv {
  OUTBOUND_ALLOW?: string;
}

const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain", "metadata", "metadata.google.internal", "instance-data", "instance-data.ec2.internal"]);
const LOCAL_SUFFIXES = [".localhost", ".local", ".localdomain", ".internal", ".home.arpa", ".intranet", ".lan", ".corp"];

/** `OUTBOUND_ALLOW` entries: `host`, `host:port`, `*.example.com`, or a URL (its host is used). */
function allowedByList(url: URL, env: OutboundEnv): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const hostPort = url.port ? `${host}:${url.port}` : host;
  for (const raw of listVar(env.OUTBOUND_ALLOW)) {
    let entry = raw.toLowerCase();
    if (entry.includes("://")) {
      try {
        entry = new URL(entry).host;
      } catch {
        continue;
      }
    }
    entry = entry.replace(/\/+$/, "").replace(/\.$/, "");
    if (entry === "*") return true;
    if (entry.startsWith("*.")) {
      const suffix = entry.slice(1);
      if (host.endsWith(suffix) && host.length > suffix.length) return true;
      continue;
    }
    if (entry === host || entry === hostPort) return true;
  }
  return false;
}

/** Four octets of a dotted-decimal IPv4 address, or undefined. */
function ipv4Octets(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : undefined;
}

/** Why an IPv4 address is not a public unicast address, or undefined when it is one. */
export function nonPublicIPv4(octets: number[]): string | undefined {
  const [a, b, c] = octets;
  if (a === 0) return "a 'this network' address (0.0.0.0/8)";
  if (a === 10) return "a private address (10.0.0.0/8)";
  if (a === 127) return "a loopback address (127.0.0.0/8)";
  if (a === 169 && b === 254) return "a link-local address (169.254.0.0/16, where cloud metadata services live)";
  if (a === 172 && b >= 16 && b <= 31) return "a private address (172.16.0.0/12)";
  if (a === 192 && b === 168) return "a private address (192.168.0.0/16)";
  if (a === 100 && b >= 64 && b <= 127) return "a shared (carrier-grade NAT) address (100.64.0.0/10)";
  if (a === 192 && b === 0 && c === 0) return "an IETF protocol address (192.0.0.0/24)";
  if ((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return "a documentation address";
  if (a === 198 && (b === 18 || b === 19)) return "a benchmarking address (198.18.0.0/15)";
  if (a >= 224 && a <= 239) return "a multicast address";
  if (a >= 240) return "a reserved address (240.0.0.0/4)";
  return undefined;
}

/** Eight 16-bit groups of an IPv6 address (as the URL parser writes it, without brackets). */
function ipv6Groups(text: string): number[] | undefined {
  let s = text;
  // A trailing dotted IPv4 (::ffff:1.2.3.4) becomes two groups.
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (dotted) {
    const o = ipv4Octets(dotted[1]);
    if (!o) return undefined;
    s = s.slice(0, -dotted[1].length) + `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const parse = (h: string) => (h ? h.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)) : []);
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array(Math.max(fill, 0)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isFinite(g)) ? groups : undefined;
}

/**
 * Why an IPv6 address is not a public unicast address, or undefined when it is one. Every form that
 * carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4, ISATAP) answers for that
 * address; Teredo and the other IETF protocol ranges are refused whole; beyond those only global
 * unicast (2000::/3) is public, so reserved and future ranges are refused too.
 */
export function nonPublicIPv6(groups: number[]): string | undefined {
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  const embedded = (hi: number, lo: number, form: string) => {
    const why = nonPublicIPv4(v4(hi, lo));
    return why ? `${form} of ${v4(hi, lo).join(".")}, ${why}` : undefined;
  };
  const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  const [first, second] = groups;
  if (zeroUpTo(8)) return "the unspecified address (::)";
  if (zeroUpTo(7) && groups[7] === 1) return "a loopback address (::1)";
  if (zeroUpTo(5) && groups[5] === 0xffff) return embedded(groups[6], groups[7], "an IPv4-mapped form (::ffff:0:0/96)");
  if (zeroUpTo(4) && groups[4] === 0xffff && groups[5] === 0) return embedded(groups[6], groups[7], "an IPv4-translated form (::ffff:0:0:0/96)");
  if (zeroUpTo(6)) return embedded(groups[6], groups[7], "an IPv4-compatible form (::/96)") ?? "an IPv4-compatible address (::/96, deprecated)";
  if (first === 0x64 && second === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return embedded(groups[6], groups[7], "a NAT64 form (64:ff9b::/96)");
  if (first === 0x64 && second === 0xff9b && groups[2] === 1) return "a local-use NAT64 address (64:ff9b:1::/48)";
  if (first === 0x2002) return embedded(groups[1], groups[2], "a 6to4 form (2002::/16)");
  // ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d) name an IPv4 tunnel end.
  if ((groups[4] === 0 || groups[4] === 0x200) && groups[5] === 0x5efe) {
    const why = embedded(groups[6], groups[7], "an ISATAP form");
    if (why) return why;
  }
  if (first === 0x2001 && second < 0x200) return "an IETF protocol address (2001::/23, Teredo tunnels included)";
  if (first === 0x2001 && second === 0x0db8) return "a documentation address (2001:db8::/32)";
  if ((first & 0xfff0) === 0x3ff0) return "a documentation address (3fff::/20)";
  if ((first & 0xfe00) === 0xfc00) return "a unique local (private) address (fc00::/7)";
  if ((first & 0xffc0) === 0xfe80) return "a link-local address (fe80::/10)";
  if ((first & 0xffc0) === 0xfec0) return "a site-local address (fec0::/10)";
  if ((first & 0xff00) === 0xff00) return "a multicast address (ff00::/8)";
  if (first === 0x0100 && zeroUpTo(4)) return "a discard-only address (100::/64)";
  if ((first & 0xe000) !== 0x2000) return "a reserved address (outside global unicast 2000::/3)";
  return undefined;
}

/** IPv4 addresses written into a wildcard-DNS name: 127.0.0.1.nip.io, 10-0-0-1.sslip.io, 7f000001.nip.io. */
function embeddedIPv4(host: string): number[][] {
  const found: number[][] = [];
  const labels = host.split(/[.-]/);
  for (let i = 0; i + 4 <= labels.length; i++) {
    const o = ipv4Octets(labels.slice(i, i + 4).join("."));
    if (o) found.push(o);
  }
  const hex = /(?:^|[.-])([0-9a-f]{8})\.(?:nip\.io|sslip\.io)$/i.exec(host);
  if (hex) {
    const n = parseInt(hex[1], 16);
    found.push([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
  }
  return found;
}

/** Why the URL's host is refused, or undefined when it may be fetched. */
function refusalOf(url: URL): string | undefined {
  const host = url.hostname.toLowerCase();
  if (!host) return "it has no host";
  if (host.startsWith("[")) {
    const groups = ipv6Groups(host.slice(1, -1).replace(/%.*$/, ""));
    if (!groups) return "its IPv6 address cannot be read";
    const why = nonPublicIPv6(groups);
    return why ? `${host} is ${why}` : undefined;
  }
  const octets = ipv4Octets(host);
  if (octets) {
    const why = nonPublicIPv4(octets);
    return why ? `${host} is ${why}` : undefined;
  }
  const name = host.replace(/\.$/, "");
  if (LOCAL_NAMES.has(name) || LOCAL_SUFFIXES.some((s) => name.endsWith(s))) return `${host} is a local name`;
  if (!name.includes(".")) return `${host} is not a public host name (no domain)`;
  for (const o of embeddedIPv4(name)) {
    const why = nonPublicIPv4(o);
    if (why) return `${host} names ${o.join(".")}, ${why}`;
  }
  return undefined;
}

/**
 * The parsed URL when the policy allows it; throws OutboundRefused (400) saying why not.
 * Use before fetching any URL that came with a request or a document.
 */
export function assertOutboundAllowed(input: string | URL, env: OutboundEnv): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new OutboundRefused(`Outbound request refused: ${String(input).slice(0, 200)} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundRefused(`Outbound request refused: only http and https URLs may be fetched, not ${url.protocol.replace(/:$/, "")}`);
  }
  if (url.username || url.password) {
    // Credentials in the URL are allowed by fetch but are a common smuggling trick; keep them out.
    throw new OutboundRefused("Outbound request refused: URLs with credentials (user:pass@) may not be fetched");
  }
  if (allowedByList(url, env)) return url;
  const why = refusalOf(url);
  if (why) throw new OutboundRefused(`Outbound request refused: ${why} (OUTBOUND_ALLOW can list hosts that may be reached)`);
  return url;
}

/** True when the policy allows the URL. */
export function isOutboundAllowed(input: string | URL, env: OutboundEnv): boolean {
  try {
    assertOutboundAllowed(input, env);
    return true;
  } catch {
    return false;
  }
}

export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * fetch() under the policy: the URL and every redirect hop are checked (redirects are followed here,
 * at most MAX_REDIRECTS). A 303 (or a 301/302 after POST) continues as a GET without a body, as
 * browsers do. Throws OutboundRefused for a refused URL.
 */
export async function outboundFetch(input: string | URL, init: RequestInit, env: OutboundEnv): Promise<Response> {
  let url = assertOutboundAllowed(input, env);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body;
  for (let hop = 0; ; hop++) {
    const res = await fetch(url.toString(), { ...init, method, body, redirect: "manual" });
    const location = res.headers.get("location");
    if (!REDIRECTS.has(res.status) || !location) return res;
    if (hop >= MAX_REDIRECTS) throw new OutboundRefused(`Outbound request refused: more than ${MAX_REDIRECTS} redirects from ${String(input).slice(0, 200)}`);
    await res.body?.cancel().catch(() => undefined);
    url = assertOutboundAllowed(new URL(location, url), env);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
  }
}

/**
 * The same policy for a TCP connection a flow names (a database URL): its host and port, whatever
 * the scheme. Throws OutboundRefused (400) saying why not.
 */
export function assertHostAllowed(host: string, port: string, env: OutboundEnv): void {
  const bare = host.replace(/^\[|\]$/g, "");
  let url: URL;
  try {
    // Parsed as an http URL, so every IPv4 notation is normalised as fetch would.
    url = new URL(`http://${bare.includes(":") ? `[${bare}]` : bare}${port ? `:${port}` : ""}/`);
  } catch {
    throw new OutboundRefused(`Outbound connection refused: ${host.slice(0, 200)} is not a valid host`);
  }
  if (allowedByList(url, env)) return;
  const why = refusalOf(url);
  if (why) throw new OutboundRefused(`Outbound connection refused: ${why} (OUTBOUND_ALLOW can list hosts that may be reached)`);
}
