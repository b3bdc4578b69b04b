// Printing the figures (markdown tables) and keeping them (bench-results.json).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "–");
const trio = (x) => `${fmt(x.p50)} / ${fmt(x.p90)} / ${fmt(x.p99)}`;

/** The request-loop table, then the streaming tables, then the skipped scenarios. */
export function printResults(results) {
  const lines = [
    "| scenario | req/s | p50 ms | p90 ms | p99 ms | p50 one at a time | CPU ms/req | failed |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...results
      .filter((r) => !r.streaming)
      .map((r) =>
        r.skipped
          ? `| ${r.name} | skipped | | | | | | |`
          : `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p90)} | ${fmt(r.p99)} | ${fmt(r.p50OneAtATime ?? (r.json ? r.p50 : NaN))} | ${fmt(r.cpuMsPerRequest, 2)} | ${Object.values(r.failures).reduce((a, b) => a + b, 0)} |`,
      ),
  ];
  if (lines.length > 2) console.log(`\n${lines.join("\n")}\n`);
  printTrips(results);
  const streamed = results.filter((r) => r.streaming);
  if (streamed.length) {
    const table = [
      "| streams in flight | streams | first token: stand-in | via edgeflow | added | whole answer: stand-in | via edgeflow | added | /ping floor | added p50 above the floor: first token, whole answer | CPU ms/stream | streams with dropped / reordered tokens or bad frames |",
      "|---:|---:|---|---|---|---|---|---|---|---|---:|---:|",
      ...streamed.map(
        ({ streaming: x, cpuMsPerRequest }) =>
          `| ${x.concurrency} | ${x.streams} | ${trio(x.standin.ttft)} | ${trio(x.edgeflow.ttft)} | ${trio(x.added.ttft)} | ` +
          `${trio(x.standin.total)} | ${trio(x.edgeflow.total)} | ${trio(x.added.total)} | ${trio(x.pingFloor)} | ` +
          `${fmt(x.addedAboveFloorP50.ttft)}, ${fmt(x.addedAboveFloorP50.total)} | ${fmt(cpuMsPerRequest, 2)} | ${x.streamsWithProblems.edgeflow} of ${x.streams} |`,
      ),
    ];
    console.log(
      `Streaming (ms, p50 / p90 / p99; ${streamed[0].streaming.tokensPerStream} tokens ${streamed[0].streaming.tokenDelayMs} ms apart; "added" = via edgeflow − stand-in):\n`,
    );
    console.log(`${table.join("\n")}\n`);
    const parts = [
      "| streams in flight | request → model call: stand-in direct | via edgeflow | added | model call → first token: direct | via edgeflow | added |",
      "|---:|---|---|---|---|---|---|",
      ...streamed.map(
        ({ streaming: x }) =>
          `| ${x.concurrency} | ${trio(x.standin.toModel)} | ${trio(x.edgeflow.toModel)} | ${trio(x.added.toModel)} | ` +
          `${trio(x.standin.modelToFirstToken)} | ${trio(x.edgeflow.modelToFirstToken)} | ${trio(x.added.modelToFirstToken)} |`,
      ),
    ];
    console.log(`Where the first-token time goes (ms, p50 / p90 / p99):\n\n${parts.join("\n")}\n`);
  }
  for (const r of results.filter((x) => x.skipped)) console.log(`skipped: ${r.name}: ${r.skipped}`);
}

const oneAtATime = (r) =>
  r.streaming
    ? `${fmt(r.streaming.edgeflow.ttft.p50)}, ${fmt(r.streaming.edgeflow.total.p50)}`
    : fmt(r.p50OneAtATime ?? (r.json ? r.p50 : NaN));
const pr = (t) => (t ? `${t.primary} / ${t.replica}` : "–");

/**
 * The simulated planet's counts: D1 round trips (primary / replica) completed before each point of
 * the answer ("the run starts": the flow's runtime took over from the run door's look-ups).
 */
function printTrips(results) {
  // A scenario's own row, and the rows of a scenario that measures several requests (tripRows: {name, trips, p50: [ms…]}).
  const rows = results.flatMap((r) => [
    ...(r.trips ? [{ name: r.name, trips: r.trips, p50: oneAtATime(r) }] : []),
    ...(r.tripRows ?? []).filter((x) => x.trips).map((x) => ({ ...x, p50: x.p50.map((n) => fmt(n)).join(", ") })),
  ]);
  if (!rows.length) return;
  const lines = [
    "| scenario | before the head | before the run starts | before the first token | before the end | " +
      "p50 ms one at a time (a stream: first token, end) |",
    "|---|---|---|---|---|---:|",
    ...rows.map(
      (r) => `| ${r.name} | ${pr(r.trips.head)} | ${pr(r.trips.run)} | ${pr(r.trips.firstToken)} | ${pr(r.trips.end)} | ${r.p50} |`,
    ),
  ];
  console.log(
    `D1 round trips on the critical path (primary / replica; completed before that point of the answer):\n\n${lines.join("\n")}\n`,
  );
}

/** Writes bench-results.json at the project root; answers its path. */
export function writeResults(root, meta, results) {
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout?.trim() || null;
  const out = join(root, "bench-results.json");
  writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), commit, node: process.version, ...meta, results }, null, 2)}\n`);
  return out;
}
