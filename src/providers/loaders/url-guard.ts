// Which URLs that arrive with a request or a document may be fetched: http(s) only, and never
// loopback, private, link-local, unique-local or cloud-metadata addresses, unless OUTBOUND_ALLOW
// lists the host. DNS cannot be asked here, so names are judged by what they are: IP literals in
// any notation (the URL parser normalises 0x7f.1, 2130706433, 0177.0.0.1 to dotted form) and
// well-known local names.
import { badRequest } from "../../errors";

const LOCAL_NAMES = /^(localhost|localhost\.localdomain|ip6-localhost|ip6-loopback|metadata|metadata\.google\.internal|instance-data|instance-data\.ec2\.internal)$/;
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa"];

function ipv4Blocked(host: string): boolean {
  const p = host.split(".").map(Number);
  if (p.length !== 4 || p.some((n) => !Number.isInteger(n) || n < 0 || n > 255)) return false;
  const [a, b] = p;
  return (
    a === 0 || a === 10 || a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && p[2] === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224 // multicast, reserved, broadcast
  );
}

/** Expands an IPv6 literal (no brackets) to 8 numbers, or undefined when it is not one. */
function ipv6Words(host: string): number[] | undefined {
  let h = host.toLowerCase();
  const v4 = h.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const p = v4[1].split(".").map(Number);
    h = h.slice(0, -v4[1].length) + `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head, tail, extra] = h.split("::");
  if (extra !== undefined) return undefined;
  const left = head ? head.split(":") : [];
  const right = tail !== undefined && tail ? tail.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 1) return undefined;
  const words = [...left, ...Array(tail === undefined ? 0 : missing).fill("0"), ...right].map((w) => parseInt(w, 16));
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

function ipv6Blocked(host: string): boolean {
  const w = ipv6Words(host);
  if (!w) return true; // an address we cannot read is not one we fetch
  if (w.every((x) => x === 0)) return true; // ::
  if (w.slice(0, 7).every((x) => x === 0) && w[7] === 1) return true; // ::1
  if ((w[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((w[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((w[0] & 0xff00) === 0xff00) return true; // multicast
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 (64:ff9b::/96): judge the IPv4 inside.
  const mapped = w.slice(0, 5).every((x) => x === 0) && (w[5] === 0xffff || w[5] === 0);
  const nat64 = w[0] === 0x64 && w[1] === 0xff9b && w.slice(2, 6).every((x) => x === 0);
  if (mapped || nat64) return ipv4Blocked(`${w[6] >> 8}.${w[6] & 255}.${w[7] >> 8}.${w[7] & 255}`);
  return false;
}

export function isAllowedByList(url: URL, allow: string[]): boolean {
  const host = url.hostname.toLowerCase();
  return allow.some((entry) => {
    const e = entry.toLowerCase();
    return e === "*" || e === host || e === url.host.toLowerCase() || e === `[${host}]`;
  });
}

/** The URL, parsed, when it may be fetched; a 400 saying why not otherwise. */
export function checkOutboundUrl(raw: string, allow: string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest(`Not a valid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badRequest(`Refusing to fetch ${url.protocol} URLs: only http and https are allowed`);
  if (url.username || url.password) throw badRequest("Refusing to fetch a URL with credentials in it");
  if (isAllowedByList(url, allow)) return url;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const refuse = () => badRequest(`Refusing to fetch ${url.origin}: it points at a loopback, private, link-local or metadata address (list the host in OUTBOUND_ALLOW to allow it)`);
  if (host.startsWith("[")) {
    if (ipv6Blocked(host.slice(1, -1))) throw refuse();
    return url;
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) {
    if (ipv4Blocked(host)) throw refuse();
    return url;
  }
  if (LOCAL_NAMES.test(host) || LOCAL_SUFFIXES.some((s) => host.endsWith(s)) || !host.includes(".")) throw refuse();
  // Names that embed an address (127.0.0.1.nip.io, 10-0-0-1.sslip.io) resolve to it.
  const embedded = host.match(/(?:^|[.-])((?:\d{1,3}[.-]){3}\d{1,3})(?:[.-]|$)/);
  if (embedded && ipv4Blocked(embedded[1].replace(/-/g, "."))) throw refuse();
  return url;
}
