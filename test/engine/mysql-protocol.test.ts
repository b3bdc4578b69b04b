// The pieces of our MySQL client that need no server: parameters bound client-side (escaping in both
// sql_modes, placeholders outside quotes and comments only), packet framing, the two plugins'
// scrambles (checked against Node's crypto, computed independently), and the URL rules. The wire
// itself is exercised against the stand-in by sql-mysql.test.ts and singlestore.test.ts.
import { describe, expect, it } from "vitest";
import { scramblePassword } from "../../src/providers/sql/mysql/auth";
import { parseMySqlUrl } from "../../src/providers/sql/mysql/database";
import { escapeId, escapeValue, format } from "../../src/providers/sql/mysql/escape";
import { PacketReader, frame } from "../../src/providers/sql/mysql/packets";

const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");

describe("MySQL client: binding values", () => {
  it("strings: quotes doubled, backslashes, NULs and ^Z escaped (plain sql_mode)", () => {
    expect(escapeValue("it's")).toBe("'it''s'");
    expect(escapeValue("a\\b")).toBe("'a\\\\b'");
    expect(escapeValue("x\\'; DROP TABLE t; --")).toBe("'x\\\\''; DROP TABLE t; --'");
    expect(escapeValue("nul\0z\x1a")).toBe("'nul\\0z\\Z'");
    expect(escapeValue('"double" `tick`')).toBe("'\"double\" `tick`'");
    expect(escapeValue("naïve ☕")).toBe("'naïve ☕'");
  });

  it("under NO_BACKSLASH_ESCAPES a backslash is literal: only quotes are doubled", () => {
    expect(escapeValue("x\\'; DROP TABLE t; --", true)).toBe("'x\\''; DROP TABLE t; --'");
    expect(escapeValue("a\\0", true)).toBe("'a\\0'");
  });

  it("numbers, null, booleans, bigints, bytes, dates, arrays and JSON", () => {
    expect(escapeValue(42)).toBe("42");
    expect(escapeValue(-1.5e-7)).toBe("-1.5e-7");
    expect(() => escapeValue(Number.NaN)).toThrow("NaN cannot be sent to MySQL");
    expect(() => escapeValue(Number.POSITIVE_INFINITY)).toThrow();
    expect(escapeValue(null)).toBe("NULL");
    expect(escapeValue(undefined)).toBe("NULL");
    expect(escapeValue(true)).toBe("TRUE");
    expect(escapeValue(12345678901234567890n)).toBe("12345678901234567890");
    expect(escapeValue(new Uint8Array([0, 255, 16]))).toBe("X'00ff10'");
    expect(escapeValue(new Date("2024-05-06T07:08:09.010Z"))).toBe("'2024-05-06 07:08:09.010'");
    expect(escapeValue([1, "a", null])).toBe("1, 'a', NULL");
    expect(escapeValue({ a: "it's", b: [1] })).toBe(`'{"a":"it''s","b":[1]}'`);
    expect(escapeId("we`ird")).toBe("`we``ird`");
  });

  it("placeholders are replaced outside strings, identifiers and comments only; counts must match", () => {
    expect(format("SELECT ?, '?', \"?\", `?`, ? -- ?\n, ? /* ? */ # ?", [1, 2, 3])).toBe(
      "SELECT 1, '?', \"?\", `?`, 2 -- ?\n, 3 /* ? */ # ?",
    );
    expect(format("SELECT 'it\\'s ?', ?", ["x"])).toBe("SELECT 'it\\'s ?', 'x'");
    expect(format("SELECT 'a''?', ?", [1])).toBe("SELECT 'a''?', 1");
    expect(format("WHERE id IN (?)", [[1, 2, 3]])).toBe("WHERE id IN (1, 2, 3)");
    expect(() => format("SELECT ?, ?", [1])).toThrow("more ? placeholders than values");
    expect(() => format("SELECT ?", [1, 2])).toThrow("fewer ? placeholders than values");
  });
});

describe("MySQL client: packets and scrambles", () => {
  it("frames payloads (16 MiB − 1 split, an empty packet ending an exact multiple) and reads them back joined", async () => {
    const small = frame(new Uint8Array([1, 2, 3]), 7);
    expect(hex(small.bytes)).toBe("03000007010203");
    expect(small.seq).toBe(8);
    const big = new Uint8Array(0xffffff).fill(9);
    const framed = frame(big, 0);
    expect(framed.bytes.length).toBe(0xffffff + 8);
    expect(framed.seq).toBe(2);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(framed.bytes.subarray(0, 100));
        c.enqueue(framed.bytes.subarray(100));
        c.enqueue(small.bytes);
        c.close();
      },
    });
    const reader = new PacketReader(stream.getReader());
    expect((await reader.next()).length).toBe(0xffffff);
    expect([...(await reader.next())]).toEqual([1, 2, 3]);
    expect(reader.seq).toBe(8);
    await expect(reader.next()).rejects.toThrow("the server closed the connection");
  });

  it("mysql_native_password and caching_sha2_password scrambles (values from Node's crypto); empty password → empty answer", async () => {
    const scramble = new TextEncoder().encode("0123456789abcdefghij");
    expect(hex(await scramblePassword("mysql_native_password", "secret", scramble))).toBe("f5cac3f3b3df2133feb57db682c71e6ed433a988");
    expect(hex(await scramblePassword("caching_sha2_password", "secret", scramble))).toBe(
      "7e4adda2f2d5ef09b4147518becb0cee2939376203650a8c2bb2815959364bd0",
    );
    expect((await scramblePassword("mysql_native_password", "", scramble)).length).toBe(0);
  });

  it("connection strings: mysql://, Flowise's host:port/db form, TLS when ssl or sslmode asks", () => {
    expect(parseMySqlUrl("mysql://app:p%40ss@db.example.com:3307/shop")).toEqual({
      host: "db.example.com",
      port: 3307,
      user: "app",
      password: "p@ss",
      database: "shop",
      tls: false,
    });
    expect(parseMySqlUrl("127.0.0.1/chinook")).toMatchObject({ host: "127.0.0.1", port: 3306, user: "root", database: "chinook" });
    expect(parseMySqlUrl("mysql://u@h/db?ssl=true").tls).toBe(true);
    expect(parseMySqlUrl("mysql://u@h/db?sslmode=REQUIRED").tls).toBe(true);
    expect(parseMySqlUrl("mysql://u@h/db?ssl-mode=disabled").tls).toBe(false);
    expect(parseMySqlUrl('mysql://u@h/db?ssl={"rejectUnauthorized":true}').tls).toBe(true);
    expect(() => parseMySqlUrl("mysql://u@h")).toThrow("names no database");
    expect(() => parseMySqlUrl("")).toThrow("needs its connection string");
  });
});
