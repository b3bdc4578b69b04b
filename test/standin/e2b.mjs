// E2B (codeInterpreterE2B), its API and its sandboxes' Jupyter server on one loopback port. Tests set
// E2B_API_URL to this URL and E2B_SANDBOX_URL to `<this URL>/{port}-{sandboxId}` (the SDK's host
// `{port}-{sandboxId}.{domain}` as a path).
//   POST /sandboxes  X-API-KEY starting "e2b_" (else 401 {code, message} as E2B answers; "e2b_revoked…" → 401
//        "Invalid API key"), {templateID, timeout (integer seconds 0..3600, else 400), …}
//        → 201 {sandboxID, templateID, clientID, envdVersion, domain: null}
//   POST /49999-<sandboxID>/execute  {code, language} → NDJSON, as the code interpreter's server streams it;
//        an unknown (or killed) sandbox → 502 {sandboxId, message: "The sandbox was not found", code}. It "runs" a tiny subset of Python:
//        `print(<literal or integer sum>)` → stdout "<value>\n"; `raise <Name>("<msg>")` → error {name, value,
//        traceback}; `plt.show()` → a result with a 1×1 PNG and its text; a last line that is a literal or an
//        integer sum → the main result (its repr as text); a bare name → NameError. Then end_of_execution.
//   DELETE /sandboxes/<id>  X-API-KEY of its creator → 204; unknown → 404 {code, message}.
// Every request is recorded with `#key=<the sandbox's API key>` added to what GET /requests?contains= searches
// (base.mjs), so a test finds its create, execute and delete by a marker in its own key.
import { serveStandin } from "./base.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** A literal or an integer sum, evaluated; undefined when the subset does not know it. */
function evaluate(expr) {
  const s = expr.trim();
  const str = /^(['"])(.*)\1$/.exec(s);
  if (str) return { py: str[2], repr: `'${str[2]}'` };
  if (/^\d+(\s*[+*-]\s*\d+)*$/.test(s)) {
    const n = s.split(/\s*\+\s*/).reduce((sum, term) => sum + term.split(/\s*\*\s*/).reduce((p, f) => p * Number(f), 1), 0);
    return { py: String(n), repr: String(n) };
  }
  return undefined;
}

function run(code) {
  const out = [];
  const lines = code.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#") && !l.trim().startsWith("import "));
  for (const [i, line] of lines.entries()) {
    const print = /^print\((.*)\)$/.exec(line.trim());
    const raise = /^raise (\w+)\((['"])(.*)\2\)$/.exec(line.trim());
    if (print) {
      const v = evaluate(print[1]);
      if (!v) return [...out, nameError(print[1])];
      out.push({ type: "stdout", text: `${v.py}\n`, timestamp: Date.now() * 1000 });
    } else if (raise) {
      return [...out, { type: "error", name: raise[1], value: raise[3], traceback: `Traceback\n${raise[1]}: ${raise[3]}` }];
    } else if (line.trim() === "plt.show()") {
      out.push({ type: "result", is_main_result: false, text: "<Figure size 640x480 with 1 Axes>", png: PNG });
    } else if (i === lines.length - 1) {
      const v = evaluate(line);
      if (!v) return [...out, nameError(line)];
      out.push({ type: "result", is_main_result: true, text: v.repr });
    }
  }
  return out;
}

const nameError = (expr) => {
  const name = /[A-Za-z_]\w*/.exec(expr)?.[0] ?? expr.trim();
  return { type: "error", name: "NameError", value: `name '${name}' is not defined`, traceback: "Traceback\nNameError" };
};

export function startE2bStandin() {
  const sandboxes = new Map();
  let n = 0;
  return serveStandin(async ({ req, res, url, body, record, json }) => {
    const key = req.headers["x-api-key"];
    const refused = (status, message) => json(status, { code: status, message });
    const exec = /^\/49999-([^/]+)\/execute$/.exec(url.pathname);
    if (exec) {
      const sandbox = sandboxes.get(exec[1]);
      record.raw += `\n#key=${sandbox?.key ?? ""}`;
      // E2B's proxy answers an unknown sandbox as JSON {sandboxId, message, code: 502} (quoted in public issues).
      if (!sandbox || req.method !== "POST") return json(502, { sandboxId: exec[1], message: "The sandbox was not found", code: 502 });
      if (typeof body?.code !== "string") return refused(400, "code is required");
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      sandbox.executions += 1;
      for (const msg of run(body.code)) res.write(`${JSON.stringify(msg)}\n`);
      res.write(`${JSON.stringify({ type: "number_of_executions", execution_count: sandbox.executions })}\n`);
      return res.end(`${JSON.stringify({ type: "end_of_execution" })}\n`);
    }
    record.raw += `\n#key=${key ?? ""}`;
    if (typeof key !== "string" || !key.startsWith("e2b_")) return refused(401, "Invalid API key, it must start with 'e2b_'");
    if (key.startsWith("e2b_revoked")) return refused(401, "Invalid API key");
    if (url.pathname === "/sandboxes" && req.method === "POST") {
      if (!body?.templateID) return refused(400, "templateID is required");
      // NewSandbox.timeout: integer seconds, minimum 0; a Hobby team's cap is 1 hour (E2B's 400 quoted in public issues).
      if (body.timeout !== undefined && !(Number.isInteger(body.timeout) && body.timeout >= 0))
        return refused(400, "timeout must be a non-negative integer");
      if (body.timeout > 3600) return refused(400, "Timeout cannot be greater than 1 hours");
      const sandboxID = `i${++n}${Math.random().toString(36).slice(2, 10)}`;
      sandboxes.set(sandboxID, { key, executions: 0 });
      return json(201, { sandboxID, templateID: body.templateID, clientID: "6532622b", envdVersion: "0.2.0", domain: null });
    }
    const kill = /^\/sandboxes\/([^/]+)$/.exec(url.pathname);
    if (kill && req.method === "DELETE") {
      const sandbox = sandboxes.get(kill[1]);
      if (!sandbox || sandbox.key !== key) return refused(404, `sandbox "${kill[1]}" not found`);
      sandboxes.delete(kill[1]);
      res.writeHead(204);
      return res.end();
    }
    return refused(404, `no route ${req.method} ${url.pathname}`);
  });
}
