// csvAgent at the CSV limit: 20,000 rows (CSV_MAX_ROWS' default) of 6 columns reach the sandbox and
// the model's code computes over all of them within the sandbox's limits.
import { describe, expect, it } from "vitest";
import csvTemplate from "./fixtures/csv-agent.json";
import { type Fixture, credential, flowDataOf, makeCtx, marker, pointAtStandin, runFlow } from "./helpers";

describe("csvAgent at CSV_MAX_ROWS", () => {
  it("20,000 rows: the code sums a column over every row", async () => {
    const lines = ["id,name,city,qty,price,active"];
    for (let i = 1; i <= 20_000; i++) lines.push(`${i},name ${i},city ${i % 50},${i % 7},${(i % 100) / 4},${i % 2 === 0}`);
    const csv = `data:text/csv;base64,${btoa(lines.join("\n"))},filename:big.csv`;
    const cred = await credential("openAIApi", { openAIApiKey: "sk-test-openai" });
    const flow = flowDataOf(csvTemplate as unknown as Fixture, (n) => {
      pointAtStandin(n.get("chatOpenAI_0")!, cred);
      n.get("csvAgent_0")!.data.inputs!.csvFile = csv;
    });
    const started = Date.now();
    const result = await runFlow(flow, makeCtx(`${marker()} [js: return df.filter((r) => r.active).reduce((s, r) => s + r.qty, 0) :js]`));
    let expected = 0;
    for (let i = 2; i <= 20_000; i += 2) expected += i % 7;
    expect(result.text).toBe(`standalone: ${expected}`);
    console.log(`csvAgent, 20,000 rows: ${Date.now() - started} ms`);
  }, 30_000);
});
