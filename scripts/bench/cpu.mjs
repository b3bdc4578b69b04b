// CPU time of the server under test — what Workers bills, and what the free plan caps at 10 ms per
// request: the on-CPU time of the workerd processes in the server's process group (every thread,
// the local D1 and R2 included), read from /proc. Linux only; elsewhere the figures are left out.
import { readFileSync, readdirSync } from "node:fs";

const TICKS_PER_S = 100; // USER_HZ: /proc/<pid>/stat counts in these when schedstat is missing

/** The pids of the processes named `name` whose /proc stat fields (state ppid pgrp …) pass `test`. */
function pidsWhere(name, test) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      if (comm === name && test(stat.slice(close + 2).split(" "))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The pids of the processes named `name` whose process group is `pgid`. */
const groupPids = (pgid, name) => pidsWhere(name, (fields) => Number(fields[2]) === pgid);

/** ms on CPU of one process, every thread: schedstat's nanoseconds when there, else utime + stime. */
function processCpuMs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    return ns / 1e6;
  } catch {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S; // utime, stime
  }
}

/**
 * A meter for the workerd processes of process group `pgid`: `read()` answers their CPU ms so far
 * (NaN when there is no /proc or no workerd). Threads that ended take their time with them; workerd's
 * live as long as the server.
 */
export function cpuMeter(pgid) {
  let pids;
  return {
    read() {
      if (process.platform !== "linux" || !pgid) return NaN;
      pids ??= groupPids(pgid, "workerd");
      if (!pids.length) {
        pids = undefined;
        return NaN;
      }
      try {
        return pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
      } catch {
        pids = undefined;
        return NaN;
      }
    },
  };
}

/** The pids of this process's `workerd` children (the workers Miniflare serves from this process). */
const childWorkerds = () => pidsWhere("workerd", (fields) => Number(fields[1]) === process.pid);

/**
 * A meter for the workerd a Miniflare of this process starts: make it before, call `started()`
 * after; `read()` answers that workerd's CPU ms so far (NaN off Linux or when none started).
 */
export function childWorkerdMeter() {
  const before = process.platform === "linux" ? new Set(childWorkerds()) : new Set();
  return {
    started() {
      const pids = process.platform === "linux" ? childWorkerds().filter((pid) => !before.has(pid)) : [];
      return { read: () => (pids.length ? pids.reduce((sum, pid) => sum + processCpuMs(pid), 0) : NaN) };
    },
  };
}
