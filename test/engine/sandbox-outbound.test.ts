// The outbound URL policy (src/lib/outbound/) that tool fetches (and web loaders) go through.
import { afterEach, describe, expect, it, vi } from "vitest";
import { OutboundRefused, assertOutboundAllowed, isOutboundAllowed, outboundFetch } from "../../src/lib/outbound";

const none = { OUTBOUND_ALLOW: "" };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("assertOutboundAllowed", () => {
  it("allows public http(s) hosts and public literal addresses", () => {
    for (const url of [
      "https://api.open-meteo.com/v1/forecast?latitude=1",
      "http://example.com:8080/path",
      "https://8.8.8.8/",
      "http://[2606:4700:4700::1111]/",
      "https://1.2.3.4.example.com/", // a public address inside a name is fine
      "https://sub.domain.co.uk./", // trailing dot
    ]) {
      expect(isOutboundAllowed(url, none), url).toBe(true);
    }
    expect(assertOutboundAllowed("https://Example.COM/a", none).hostname).toBe("example.com");
  });

  it("refuses loopback, private, link-local, metadata and special addresses in every notation", () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://127.255.255.254:9000/",
      "http://127.1/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "http://0x7f.0.0.1/",
      "http://0.0.0.0/",
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://172.31.255.255/",
      "http://192.168.0.10/",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.64.0.1/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://[::1]/",
      "http://[::]/",
      "http://[0:0:0:0:0:0:0:1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://[64:ff9b::a00:1]/",
      "http://[2002:c0a8:0101::1]/",
      "http://[fc00::1]/",
      "http://[fd00:ec2::254]/",
      "http://[fe80::1]/",
      "http://[ff02::1]/",
      "http://localhost/",
      "http://LOCALHOST:8787/",
      "http://localhost./",
      "http://api.localhost/",
      "http://printer.local/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://metadata/",
      "http://intranet/",
      "http://127.0.0.1.nip.io/",
      "http://app.10-0-0-1.sslip.io/",
      "http://7f000001.nip.io/",
      "http://169.254.169.254.xip.io/",
    ]) {
      expect(() => assertOutboundAllowed(url, none), url).toThrow(OutboundRefused);
    }
  });

  it("refuses schemes other than http(s), credentials in the URL, and what is not a URL", () => {
    for (const url of [
      "file:///etc/passwd",
      "ftp://example.com/",
      "data:text/plain,hi",
      "javascript:alert(1)",
      "gopher://example.com/",
      "not a url",
      "https://user:pass@example.com/",
    ]) {
      expect(() => assertOutboundAllowed(url, none), url).toThrow(OutboundRefused);
    }
    const err = (() => {
      try {
        assertOutboundAllowed("http://127.0.0.1:8787/x", none);
      } catch (e) {
        return e as OutboundRefused;
      }
    })();
    expect(err).toMatchObject({
      status: 400,
      message:
        "Outbound request refused: 127.0.0.1 is a loopback address (127.0.0.0/8) (OUTBOUND_ALLOW can list hosts that may be reached)",
    });
  });

  it("OUTBOUND_ALLOW lists hosts (host, host:port, *.suffix, or a URL) that may be reached anyway", () => {
    expect(isOutboundAllowed("http://localhost:11434/api", { OUTBOUND_ALLOW: "localhost" })).toBe(true);
    expect(isOutboundAllowed("http://127.0.0.1:8787/", { OUTBOUND_ALLOW: "127.0.0.1:8787" })).toBe(true);
    expect(isOutboundAllowed("http://127.0.0.1:9999/", { OUTBOUND_ALLOW: "127.0.0.1:8787" })).toBe(false);
    expect(isOutboundAllowed("http://wiki.corp.internal/", { OUTBOUND_ALLOW: " *.corp.internal , other" })).toBe(true);
    expect(isOutboundAllowed("http://corp.internal/", { OUTBOUND_ALLOW: "*.corp.internal" })).toBe(false);
    expect(isOutboundAllowed("http://10.0.0.5/", { OUTBOUND_ALLOW: "http://10.0.0.5/" })).toBe(true);
    expect(isOutboundAllowed("http://[::1]:3000/", { OUTBOUND_ALLOW: "[::1]:3000" })).toBe(true);
    // the scheme rule is not lifted
    expect(isOutboundAllowed("file://localhost/etc/passwd", { OUTBOUND_ALLOW: "localhost" })).toBe(false);
  });
});

describe("outboundFetch", () => {
  it("follows redirects itself, checking every hop", async () => {
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = String(input);
      if (url === "https://a.example/") return new Response(null, { status: 301, headers: { location: "/b" } });
      if (url === "https://a.example/b") return new Response(null, { status: 302, headers: { location: "https://c.example/final" } });
      return new Response("arrived");
    });
    const res = await outboundFetch("https://a.example/", {}, none);
    expect(await res.text()).toBe("arrived");
    expect(spy.mock.calls.map((c) => String(c[0]))).toEqual(["https://a.example/", "https://a.example/b", "https://c.example/final"]);
    expect(spy.mock.calls.every((c) => (c[1] as RequestInit).redirect === "manual")).toBe(true);
  });

  it("refuses a redirect to a private address before fetching it, and too many redirects", async () => {
    const spy = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation(async (input) =>
        String(input).includes("loop")
          ? new Response(null, { status: 302, headers: { location: "https://loop.example/again" } })
          : new Response(null, { status: 307, headers: { location: "http://[::1]:8787/admin" } }),
      );
    await expect(outboundFetch("https://public.example/", {}, none)).rejects.toThrow(
      "Outbound request refused: [::1] is a loopback address (::1)",
    );
    expect(spy).toHaveBeenCalledTimes(1);
    await expect(outboundFetch("https://loop.example/", {}, none)).rejects.toThrow(
      "https://loop.example redirected more than 5 times (at most 5 redirects are followed)",
    );
  });

  it("a 303 continues as a GET without a body", async () => {
    const spy = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation(async (input) =>
        String(input).endsWith("/form") ? new Response(null, { status: 303, headers: { location: "/done" } }) : new Response("ok"),
      );
    await outboundFetch("https://site.example/form", { method: "POST", body: "a=1" }, none);
    expect(spy.mock.calls[1][1]).toMatchObject({ method: "GET", body: undefined });
  });
});
