// codeTextSplitter: the chunks LangChain's RecursiveCharacterTextSplitter.fromLanguage makes for
// a code sample; Flowise's own separators for the languages LangChain lacks (ts, c, …); a plain
// recursive split for a language it does not know; and in a chatflow, a loader split by it.
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { describe, expect, it } from "vitest";
import type { FlowNode } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { buildSplitter } from "../../src/providers/splitters/registry";
import { makeCtx } from "./helpers";

const PYTHON = `import os

class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return "Hello, " + self.name


def main():
    g = Greeter("world")
    print(g.greet())


if __name__ == "__main__":
    main()
`;

const TS = `interface Point {
  x: number;
}

function norm(p: Point) {
  return Math.abs(p.x);
}

const origin = { x: 0 };
`;

describe("codeTextSplitter", () => {
  it("python: the chunks LangChain's fromLanguage('python') makes (class and def boundaries first)", async () => {
    const ours = await buildSplitter("codeTextSplitter", { language: "python", chunkSize: 80, chunkOverlap: "10" }).splitText(PYTHON);
    const theirs = await RecursiveCharacterTextSplitter.fromLanguage("python", { chunkSize: 80, chunkOverlap: 10 }).splitText(PYTHON);
    expect(ours).toEqual(theirs);
    expect(ours).toEqual([
      "import os",
      "class Greeter:\n    def __init__(self, name):\n        self.name = name",
      'def greet(self):\n        return "Hello, " + self.name',
      'def main():\n    g = Greeter("world")\n    print(g.greet())',
      'if __name__ == "__main__":\n    main()',
    ]);
  });

  it("ts (Flowise's separators): interface, function and const start chunks", async () => {
    const chunks = await buildSplitter("codeTextSplitter", { language: "ts", chunkSize: 40, chunkOverlap: 0 }).splitText(TS);
    expect(chunks).toEqual([
      "interface Point {\n  x: number;\n}",
      "function norm(p: Point) {",
      "return Math.abs(p.x);\n}",
      "const origin = { x: 0 };",
    ]);
  });

  it("a language it does not know splits as a plain recursive splitter; bad sizes are a 400", async () => {
    const plain = await buildSplitter("codeTextSplitter", { language: "fortran", chunkSize: 40, chunkOverlap: 0 }).splitText(TS);
    expect(plain).toEqual(await new RecursiveCharacterTextSplitter({ chunkSize: 40, chunkOverlap: 0 }).splitText(TS));
    expect(() => buildSplitter("codeTextSplitter", { language: "js", chunkSize: 10, chunkOverlap: 20 })).toThrow(/chunkOverlap/);
  });

  it("as a chatflow node: built from its inputs and split documents the same way", async () => {
    const node: FlowNode = {
      id: "codeTextSplitter_0",
      data: { id: "codeTextSplitter_0", name: "codeTextSplitter", label: "Code", category: "Text Splitters", inputs: {} },
    };
    const inputs = { language: "python", chunkSize: 80, chunkOverlap: 10 };
    const splitter = (await registry.get("codeTextSplitter")!.build({ node, inputs, ctx: makeCtx("q") })) as RecursiveCharacterTextSplitter;
    const docs = await splitter.createDocuments([PYTHON], [{ source: "app.py" }]);
    expect(docs.map((d) => d.pageContent)[1]).toBe("class Greeter:\n    def __init__(self, name):\n        self.name = name");
    expect(docs[0].metadata).toMatchObject({ source: "app.py" });
  });
});
