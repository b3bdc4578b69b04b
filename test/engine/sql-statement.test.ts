// The read-only rule for the statements a model writes (src/providers/sql/statement.ts): what passes,
// what is refused and why — quotes, comments and dollar quoting do not hide or invent keywords.
import { describe, expect, it } from "vitest";
import { checkStatement } from "../../src/providers/sql/statement";
import { SqlRefused } from "../../src/providers/sql/types";

const refusal = (sql: string, allowWrites = false): string => {
  try {
    checkStatement(sql, allowWrites);
  } catch (err) {
    expect(err).toBeInstanceOf(SqlRefused);
    return (err as Error).message;
  }
  throw new Error(`not refused: ${sql}`);
};

describe("checkStatement", () => {
  it.each([
    ["SELECT name FROM t;", "SELECT name FROM t"],
    ["  select 'delete me; drop table t' as x ;;  ", "select 'delete me; drop table t' as x"],
    ['SELECT "update", [insert], `drop` FROM t', 'SELECT "update", [insert], `drop` FROM t'],
    ["WITH a AS (SELECT 1) SELECT * FROM a -- then DELETE FROM t", "WITH a AS (SELECT 1) SELECT * FROM a -- then DELETE FROM t"],
    ["SELECT /* insert; */ 1", "SELECT /* insert; */ 1"],
    ["SELECT $$ drop table t; $$ AS body", "SELECT $$ drop table t; $$ AS body"],
    ["SELECT 'it''s; update'", "SELECT 'it''s; update'"],
    ["VALUES (1), (2)", "VALUES (1), (2)"],
    ["EXPLAIN SELECT 1", "EXPLAIN SELECT 1"],
  ])("lets %s run (as %s)", (sql, runs) => {
    expect(checkStatement(sql, false)).toBe(runs);
  });

  it.each([
    ["DELETE FROM t", "starts with DELETE"],
    ["  insert into t values (1)", "starts with INSERT"],
    ["PRAGMA writable_schema = 1", "starts with PRAGMA"],
    ["WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "contains DELETE"],
    ["SELECT * INTO copy_of_t FROM t", "contains INTO"],
    ["EXPLAIN ANALYZE UPDATE t SET a = 1", "contains UPDATE"],
    ["SELECT 1; SELECT 2", "Only one SQL statement"],
    ["SELECT 1; -- and more", "Only one SQL statement"],
    ["SELECT 'unterminated", "unterminated quote"],
    ["SELECT 1 /* open", "unterminated comment"],
    ["SELECT $x$ never closed", "unterminated dollar-quoted"],
    ["", "no SQL statement"],
  ])("refuses %s", (sql, why) => {
    expect(refusal(sql)).toContain(why);
  });

  it("allowWrites lifts the read-only rule but not the one-statement rule", () => {
    expect(checkStatement("INSERT INTO t VALUES (1);", true)).toBe("INSERT INTO t VALUES (1)");
    expect(refusal("INSERT INTO t VALUES (1); DROP TABLE t", true)).toContain("Only one SQL statement");
  });
});
