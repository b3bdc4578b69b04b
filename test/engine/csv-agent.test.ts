// csvAgent: Flowise's "CSV Agent" template as exported with a CSV file in its csvFile input. The CSV is
// parsed in the worker; the model writes JavaScript over `df`, which runs in the QuickJS sandbox; the
// model then rephrases the result. What the model was shown, what the code computed from the rows,
// the sandbox's limits, and the errors.
import { describe, expect, it } from "vitest";
import { flowDataWarning } from "../../src/services/chatflows";
import csvTemplate from "./fixtures/csv-agent.json";
import {
  type Fixture,
  canStreamFlow,
  credential,
  flowDataOf,
  makeCtx,
  marker,
  pointAtStandin,
  recordingSink,
  requestsWith,
  runFlow,
  runtimeWith,
} from "./helpers";

const PEOPLE =
  'name,age,city,member\nAda,36,London,true\nAlan,41,Wilmslow,false\n"Hopper, Grace",85,"New York",true\nLinus,,Helsinki,false\n';
const dataUri = (csv: string, name = "people.csv") => `data:text/csv;base64,${btoa(csv)},filename:${name}`;

async function template(inputs: Record<string, unknown> = {}): Promise<string> {
  const cred = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
  return flowDataOf(csvTemplate as unknown as Fixture, (n) => {
    pointAtStandin(n.get("chatOpenAI_0")!, cred);
    Object.assign(n.get("csvAgent_0")!.data.inputs!, { csvFile: dataUri(PEOPLE), ...inputs });
  });
}

describe("CSV Agent template (csvAgent)", () => {
  it("saves without a warning", () => {
    expect(flowDataWarning(JSON.stringify({ nodes: csvTemplate.nodes, edges: csvTemplate.edges }))).toBeUndefined();
  });

  it("shows the columns and types, runs the model's code over the rows, and rephrases the result", async () => {
    const m = marker();
    const question = `How many members are older than 30? ${m} [js: return df.filter((r) => r.member && r.age > 30).map((r) => r.name).join(" and ") :js]`;
    const result = await runFlow(await template(), makeCtx(question));
    const [ask, answer, ...more] = await requestsWith(m);
    expect(more).toHaveLength(0);
    const prompt = ask.body.messages[0].content;
    expect(prompt).toContain("The name of the array is df");
    expect(prompt).toContain('{"name":"string","age":"number","city":"string","member":"boolean"}');
    expect(prompt.endsWith(`Question: ${question}\nOutput Code:`)).toBe(true);
    expect(answer.body.messages[0].content).toBe(
      `You are given the question: ${question}. You have an answer to the question: Ada and Hopper, Grace. Rephrase the answer into a standalone answer.\nStandalone Answer:`,
    );
    expect(result).toEqual({ text: "standalone: Ada and Hopper, Grace", memoryType: null });
  });

  it("code without a return answers its last expression; numbers and nulls are typed", async () => {
    const code = "const known = df.filter((r) => r.age !== null);\nknown.reduce((s, r) => s + r.age, 0) / known.length";
    const result = await runFlow(await template(), makeCtx(`Mean age? ${marker()} [js: ${code} :js]`));
    expect(result.text).toBe("standalone: 54");
  });

  it("streams the standalone answer; the system message goes before it", async () => {
    const flow = await template({ systemMessagePrompt: "You are Ada's data clerk." });
    expect(canStreamFlow(flow)).toBe(true);
    const m = marker();
    const rec = recordingSink();
    const result = await runFlow(flow, makeCtx(`Rows? ${m} [js: df.length :js]`), rec.sink);
    expect(result.text).toBe("standalone: 4");
    expect(rec.text()).toBe(result.text);
    const [, answer] = await requestsWith(m);
    expect(answer.body.messages[0].content.startsWith("You are Ada's data clerk.\nYou are given the question:")).toBe(true);
    expect(answer.body.stream).toBe(true);
  });

  it("customReadCSV's sep is the separator", async () => {
    const flow = await template({ csvFile: dataUri("a;b\n1;2\n3;4\n", "semi.csv"), customReadCSV: 'read_csv(csv_data, sep=";")' });
    const result = await runFlow(flow, makeCtx(`Sum of b? ${marker()} [js: return df.reduce((s, r) => s + r.b, 0) :js]`));
    expect(result.text).toBe("standalone: 6");
  });

  it("code that throws is a 502 quoting the code", async () => {
    const err = (await runFlow(await template(), makeCtx(`${marker()} [js: return df.nope.length :js]`)).catch((e: unknown) => e)) as {
      status: number;
      message: string;
    };
    expect(err.status).toBe(502);
    expect(err.message).toContain("Sorry, I'm unable to find answer for question");
    expect(err.message).toContain('using following code: "return df.nope.length"');
  });

  it("code that never ends is stopped by the sandbox's limit", async () => {
    const started = Date.now();
    const err = (await runFlow(
      await template(),
      makeCtx(`${marker()} [js: while (true) {} :js]`, { runtime: runtimeWith({ TOOL_TIMEOUT_MS: "2000" } as never) }),
    ).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(502);
    expect(err.message).toMatch(/time limit|TOOL_SLICE_MS|stopped/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("the code sees nothing of the worker: no env, no bindings", async () => {
    const result = await runFlow(
      await template(),
      makeCtx(`${marker()} [js: return typeof globalThis.DB + "/" + typeof process + "/" + typeof caches :js]`),
    );
    expect(result.text).toBe("standalone: undefined/undefined/undefined");
  });

  it("without a CSV file the node is a 400; a CSV over CSV_MAX_ROWS is a 413", async () => {
    await expect(runFlow(await template({ csvFile: "" }), makeCtx(`${marker()} [js: 1 :js]`))).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("has no CSV file"),
    });
    const many = `n\n${Array.from({ length: 30 }, (_, i) => i).join("\n")}`;
    await expect(
      runFlow(
        await template({ csvFile: dataUri(many) }),
        makeCtx(`${marker()} [js: 1 :js]`, { runtime: runtimeWith({ CSV_MAX_ROWS: "10" } as never) }),
      ),
    ).rejects.toMatchObject({ status: 413, message: expect.stringContaining("CSV_MAX_ROWS") });
  });
});
