// Reading a URL's host for the outbound policy (policy.ts): literal addresses are read with ipaddr.js
// after WHATWG URL parsing has normalised the IPv4 forms (127.1, 0x7f.0.0.1, 2130706433, …); every
// IPv6 form that carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4, ISATAP)
// answers for that address. Workers have no DNS API, so names are not resolved; names that are
// local by definition (localhost, *.local, *.internal, dotless names, cloud metadata names) and
// wildcard-DNS names that embed a non-public IPv4 (127.0.0.1.nip.io, 10-0-0-1.sslip.io) are refused.
import ipaddr from "ipaddr.js";

const LOCAL_NAMES = new Set([
  "localhost",
  "localhost.localdomain",
  "metadata",
  "metadata.google.internal",
  "instance-data",
  "instance-data.ec2.internal",
]);
const LOCAL_SUFFIXES = [".localhost", ".local", ".localdomain", ".internal", ".home.arpa", ".intranet", ".lan", ".corp"];
const LOOPBACK_NAMES = /^(localhost|localhost\.localdomain|.+\.localhost)$/;

/** Why an address is refused, and whether it is loopback (which a local environment may reach). */
export interface Refusal {
  why: string;
  loopback: boolean;
}

// What each of ipaddr.js's IPv4 ranges is called in a refusal; every range but unicast is refused.
const IPV4_RANGES: Record<string, string> = {
  unspecified: "a 'this network' address",
  broadcast: "the broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a shared (carrier-grade NAT) address",
  private: "a private address",
  reserved: "a reserved, documentation or IETF protocol address",
  as112: "an AS112 (DNS sink) address",
  amt: "an AMT relay anycast address",
  benchmarking: "a benchmarking address",
};

/** The special range (its CIDR) of `addr` named `range` in ipaddr.js's table, for the message. */
function cidrOf(addr: ipaddr.IPv4 | ipaddr.IPv6, range: string): string {
  // SpecialRanges is the table range() reads (on the prototype; its type definitions leave it out).
  const table = (addr as unknown as { SpecialRanges?: Record<string, unknown> }).SpecialRanges ?? {};
  const entry = table[range] as [ipaddr.IPv4, number] | Array<[ipaddr.IPv4, number]> | undefined;
  if (!entry) return "";
  const list = (Array.isArray(entry[0]) ? entry : [entry]) as Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  const hit = list.find(([net, bits]) => addr.kind() === net.kind() && addr.match(net, bits));
  return hit ? `${hit[0].toString()}/${hit[1]}` : "";
}

function ipv4Refusal(addr: ipaddr.IPv4): Refusal | undefined {
  const range = addr.range();
  if (range === "unicast") return undefined;
  const name = IPV4_RANGES[range] ?? `a ${range} address`;
  const note = range === "linkLocal" ? ", where cloud metadata services live" : "";
  return { why: `${name} (${cidrOf(addr, range)}${note})`, loopback: range === "loopback" };
}

const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);
const IPV4_COMPATIBLE = v6("::/96");
const NAT64_WELL_KNOWN = v6("64:ff9b::/96");
const GLOBAL_UNICAST = v6("2000::/3");
// 3fff::/20 (documentation) and 3ffe::/16 (the retired 6bone) inside it: refused as one block.
const DOCUMENTATION_AND_6BONE = v6("3ff0::/12");

// IPv6 ranges refused whole, by ipaddr.js's name (the forms carrying an IPv4 address are read first).
const IPV6_RANGES: Record<string, string> = {
  unspecified: "the unspecified address (::)",
  loopback: "a loopback address (::1)",
  linkLocal: "a link-local address (fe80::/10)",
  deprecatedSiteLocal: "a site-local address (fec0::/10)",
  uniqueLocal: "a unique local (private) address (fc00::/7)",
  multicast: "a multicast address (ff00::/8)",
  discard: "a discard-only address (100::/64)",
  rfc6052: "a local-use NAT64 address (64:ff9b:1::/48)",
  teredo: "an IETF protocol address (2001::/23, Teredo tunnels included)",
  benchmarking: "an IETF protocol address (2001::/23)",
  amt: "an IETF protocol address (2001::/23)",
  as112v6: "an AS112 (DNS sink) address",
  deprecatedOrchid: "an IETF protocol address (2001::/23)",
  orchid2: "an IETF protocol address (2001::/23)",
  droneRemoteIdProtocolEntityTags: "an IETF protocol address (2001::/23)",
  segmentRouting: "a segment routing address (5f00::/16)",
};

/** The IPv4 address an IPv6 form carries at 16-bit groups [hi, lo]. */
const v4At = (addr: ipaddr.IPv6, hi: number): ipaddr.IPv4 => {
  const g = addr.parts;
  return new ipaddr.IPv4([g[hi] >> 8, g[hi] & 255, g[hi + 1] >> 8, g[hi + 1] & 255]);
};

/** A refusal for the IPv4 address inside an IPv6 form, or undefined when that address is public. */
function embedded(v4: ipaddr.IPv4, form: string): Refusal | undefined {
  const inner = ipv4Refusal(v4);
  return inner ? { why: `${form} of ${v4.toString()}, ${inner.why}`, loopback: inner.loopback } : undefined;
}

/**
 * Why an IPv6 address is refused. Every form that carries an IPv4 address answers for that
 * address; Teredo and the other IETF protocol ranges are refused whole; beyond those only global
 * unicast (2000::/3) is public, so reserved and future ranges are refused too.
 */
function ipv6Refusal(addr: ipaddr.IPv6): Refusal | undefined {
  const range = addr.range();
  const g = addr.parts;
  if (range === "ipv4Mapped") return embedded(addr.toIPv4Address(), "an IPv4-mapped form (::ffff:0:0/96)");
  if (range === "rfc6145") return embedded(v4At(addr, 6), "an IPv4-translated form (::ffff:0:0:0/96)");
  if (range === "loopback") return { why: IPV6_RANGES.loopback, loopback: true };
  if (range === "unspecified") return { why: IPV6_RANGES.unspecified, loopback: false };
  if (addr.match(IPV4_COMPATIBLE))
    return (
      embedded(v4At(addr, 6), "an IPv4-compatible form (::/96)") ?? {
        why: "an IPv4-compatible address (::/96, deprecated)",
        loopback: false,
      }
    );
  if (addr.match(NAT64_WELL_KNOWN)) return embedded(v4At(addr, 6), "a NAT64 form (64:ff9b::/96)");
  if (range === "6to4") return embedded(v4At(addr, 1), "a 6to4 form (2002::/16)");
  // ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d) name an IPv4 tunnel end.
  if ((g[4] === 0 || g[4] === 0x200) && g[5] === 0x5efe) {
    const why = embedded(v4At(addr, 6), "an ISATAP form");
    if (why) return why;
  }
  if (range === "reserved") {
    const documentation = addr.match(v6("2001:db8::/32")) || addr.match(v6("3fff::/20"));
    return {
      why: documentation
        ? `a documentation address (${cidrOf(addr, range)})`
        : "an IETF protocol address (2001::/23, Teredo tunnels included)",
      loopback: false,
    };
  }
  if (range !== "unicast") return { why: IPV6_RANGES[range] ?? `a ${range} address`, loopback: false };
  if (addr.match(DOCUMENTATION_AND_6BONE)) return { why: "a documentation or retired test address (3ff0::/12)", loopback: false };
  if (!addr.match(GLOBAL_UNICAST)) return { why: "a reserved address (outside global unicast 2000::/3)", loopback: false };
  return undefined;
}

/** IPv4 addresses written into a wildcard-DNS name: 127.0.0.1.nip.io, 10-0-0-1.sslip.io, 7f000001.nip.io. */
function embeddedIPv4(host: string): ipaddr.IPv4[] {
  const found: ipaddr.IPv4[] = [];
  const labels = host.split(/[.-]/);
  for (let i = 0; i + 4 <= labels.length; i++) {
    const window = labels.slice(i, i + 4);
    // Label patterns, read as decimal octets the way these services do (a leading zero included).
    if (window.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) found.push(new ipaddr.IPv4(window.map(Number)));
  }
  const hex = /(?:^|[.-])([0-9a-f]{8})\.(?:nip\.io|sslip\.io)$/i.exec(host);
  if (hex) found.push(ipaddr.IPv4.parse(`0x${hex[1]}`));
  return found;
}

/** Why the URL's host is refused, or undefined when it may be fetched. */
export function refusalOf(url: URL): Refusal | undefined {
  const host = url.hostname.toLowerCase();
  if (!host) return { why: "it has no host", loopback: false };
  if (host.startsWith("[")) {
    let addr: ipaddr.IPv6;
    try {
      addr = ipaddr.IPv6.parse(host.slice(1, -1));
    } catch {
      return { why: "its IPv6 address cannot be read", loopback: false };
    }
    const refusal = ipv6Refusal(addr);
    return refusal && { ...refusal, why: `${host} is ${refusal.why}` };
  }
  // The URL parser has already turned every IPv4 notation into four decimal parts.
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    const refusal = ipv4Refusal(ipaddr.IPv4.parse(host));
    return refusal && { ...refusal, why: `${host} is ${refusal.why}` };
  }
  const name = host.replace(/\.$/, "");
  if (LOCAL_NAMES.has(name) || LOCAL_SUFFIXES.some((s) => name.endsWith(s)))
    return { why: `${host} is a local name`, loopback: LOOPBACK_NAMES.test(name) };
  if (!name.includes(".")) return { why: `${host} is not a public host name (no domain)`, loopback: false };
  for (const v4 of embeddedIPv4(name)) {
    const refusal = ipv4Refusal(v4);
    if (refusal) return { why: `${host} names ${v4.toString()}, ${refusal.why}`, loopback: refusal.loopback };
  }
  return undefined;
}
