// Issue 8, point 7: http://[::ffff:0:7f00:1]/ (127.0.0.1 as an IPv4-translated IPv6 address) got
// past the outbound policy. Every IPv6 form that carries a refused IPv4 address — mapped,
// translated, compatible, NAT64, 6to4, ISATAP, Teredo — is now refused, as are reserved ranges;
// through the policy itself, a custom tool's fetch and a web loader.
import { afterEach, describe, expect, it, vi } from "vitest";
import { OutboundRefused, assertOutboundAllowed, isOutboundAllowed } from "../../src/lib/outbound";
import { callOf, customToolNode, toolAgentFlow } from "../engine/agents-flows";
import { call, json } from "../helpers";
import { openAICredential } from "./helpers";

const none = { OUTBOUND_ALLOW: "" };

afterEach(() => {
  vi.restoreAllMocks();
});

const hex = (o: number[]) => `${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;

/** Every IPv6 spelling of an IPv4 address this test knows (each URL parser-normalised or not). */
function ipv6Forms(ip: string): string[] {
  const o = ip.split(".").map(Number);
  return [
    `::ffff:${ip}`,
    `::ffff:${hex(o)}`,
    `0:0:0:0:0:ffff:${ip}`, // IPv4-mapped
    `::ffff:0:${ip}`,
    `::ffff:0:${hex(o)}`,
    `0:0:0:0:ffff:0:${hex(o)}`, // IPv4-translated (SIIT)
    `::${ip}`,
    `::${hex(o)}`, // IPv4-compatible
    `64:ff9b::${ip}`,
    `64:ff9b::${hex(o)}`, // NAT64 well-known prefix
    `2002:${hex(o)}::1`,
    `2002:${hex(o)}:1234:5678:9abc:def0:1`, // 6to4
    `2001:4860:1:2:0:5efe:${ip}`,
    `2a00:1450::200:5efe:${hex(o)}`, // ISATAP interface ids
  ];
}

const REFUSED_V4 = [
  "127.0.0.1",
  "127.1.2.3",
  "10.0.0.1",
  "172.16.5.4",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "0.0.0.0",
  "224.0.0.1",
];

describe("the outbound policy refuses every IPv6 form of a refused IPv4 address", () => {
  it("the issue's address", () => {
    expect(() => assertOutboundAllowed("http://[::ffff:0:7f00:1]/", none)).toThrow(OutboundRefused);
    expect(() => assertOutboundAllowed("http://[::ffff:0:7f00:1]/", none)).toThrow(/127\.0\.0\.1, a loopback address/);
  });

  it("mapped, translated, compatible, NAT64, 6to4 and ISATAP forms of loopback, private, link-local, CGNAT, unspecified and multicast addresses", () => {
    for (const ip of REFUSED_V4) {
      for (const form of ipv6Forms(ip)) expect(isOutboundAllowed(`http://[${form}]:8080/x`, none), `${ip} as [${form}]`).toBe(false);
    }
  });

  it("Teredo, local-use NAT64, documentation and reserved ranges are refused whole", () => {
    for (const addr of [
      "2001:0:4136:e378:8000:63bf:80ff:fffe",
      "2001::1",
      "64:ff9b:1::a00:1",
      "3fff::1",
      "2001:db8::1",
      "1::1",
      "4000::1",
      "5f00::1",
      "::2",
      "100::1",
    ]) {
      expect(isOutboundAllowed(`http://[${addr}]/`, none), addr).toBe(false);
    }
  });

  it("public addresses stay reachable, in IPv6 forms too", () => {
    for (const url of [
      "http://[2606:4700:4700::1111]/",
      "http://[2a00:1450:4001:80b::200e]/",
      "http://[::ffff:8.8.8.8]/",
      "http://[64:ff9b::8.8.8.8]/",
      "http://[2002:808:808::1]/",
    ]) {
      expect(isOutboundAllowed(url, none), url).toBe(true);
    }
  });

  it("OUTBOUND_ALLOW still lifts the rule for a listed host", () => {
    expect(isOutboundAllowed("http://[::ffff:0:7f00:1]:3000/", { OUTBOUND_ALLOW: "[::ffff:0:7f00:1]:3000" })).toBe(true);
  });
});

describe("through the API", () => {
  it("a custom tool's fetch of http://[::ffff:0:7f00:1]/ is refused, the request never leaves", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    const tool = await json("POST", "/tools", {
      body: {
        name: "probe",
        description: "fetches",
        func: `const r = await fetch("http://[::ffff:0:7f00:1]:8787/admin"); return String(r.status);`,
      },
    });
    const credential = await openAICredential("sk-test");
    const flowData = toolAgentFlow({ credential, nodes: [customToolNode("customTool_0", tool.id)] });
    const { id } = await json("POST", "/chatflows", { body: { name: "agent", flowData } });
    const answer = await json("POST", `/prediction/${id}`, { body: { question: callOf("probe", {}) } });
    expect(answer.usedTools[0].toolOutput).toMatch(
      /^Error: .*Outbound request refused: \[::ffff:0:7f00:1\] is an IPv4-translated form .* of 127\.0\.0\.1, a loopback address/,
    );
    expect(spy.mock.calls.map(([input]) => String(input instanceof Request ? input.url : input)).filter((u) => u.includes("7f00"))).toEqual(
      [],
    );
  });

  it("a web loader pointed at an IPv4-translated metadata address is a 400", async () => {
    const store = await json("POST", "/document-store/store", { body: { name: "ipv6" } });
    const res = await call("POST", `/document-store/upsert/${store.id}`, {
      body: { loader: { name: "cheerioWebScraper", config: { url: "http://[::ffff:0:a9fe:a9fe]/latest/meta-data/" } } },
    });
    expect(res.status).toBe(400);
    expect((await res.json<any>()).message).toMatch(/Outbound request refused: .*169\.254\.169\.254/);
  });
});
