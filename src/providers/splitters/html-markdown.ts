// htmlToMarkdownTextSplitter: HTML made into Markdown, then split as the Markdown splitter splits
// (Flowise converts with node-html-markdown; this is our own converter over HTMLRewriter, the
// Workers runtime's streaming HTML parser, so nothing is bundled). Headings, paragraphs and block
// elements, lists (nested, ordered), links, images, emphasis, inline code and <pre> blocks, tables
// as `| a | b |` rows; entities decoded; script, style, head and the like dropped.
import { MarkdownTextSplitter } from "@langchain/textsplitters";
import { decodeHTML } from "entities/decode";

const SKIP = new Set(["script", "style", "head", "noscript", "template", "svg", "iframe", "object", "canvas", "select", "button"]);
const BLOCK = new Set([
  "p",
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "aside",
  "nav",
  "figure",
  "figcaption",
  "address",
  "form",
  "fieldset",
  "details",
  "summary",
  "dl",
  "dt",
  "dd",
  "body",
]);

/** Markdown being written: pieces, with the blank-line and line-start rules kept at the tail. */
class Writer {
  private parts: string[] = [];

  write(s: string): void {
    if (s) this.parts.push(s);
  }

  private trimEnd(): void {
    while (this.parts.length) {
      const last = this.parts[this.parts.length - 1];
      let end = last.length;
      while (end > 0 && (last[end - 1] === " " || last[end - 1] === "\t")) end--;
      if (end) {
        this.parts[this.parts.length - 1] = last.slice(0, end);
        return;
      }
      this.parts.pop();
    }
  }

  private trailingNewlines(): number {
    let n = 0;
    for (let i = this.parts.length - 1; i >= 0; i--) {
      const p = this.parts[i];
      for (let j = p.length - 1; j >= 0; j--) {
        if (p[j] !== "\n") return n;
        n++;
      }
    }
    return this.parts.length ? n : 2;
  }

  /** Ends the current line (count 1) or paragraph (count 2). */
  breakLine(count: 1 | 2): void {
    this.trimEnd();
    const have = this.trailingNewlines();
    if (have < count) this.parts.push("\n".repeat(count - have));
  }

  atLineStart(): boolean {
    return this.trailingNewlines() > 0;
  }

  toString(): string {
    return this.parts
      .join("")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
  }
}

interface State {
  out: Writer;
  skip: number;
  pre: number;
  lists: Array<{ ordered: boolean; n: number }>;
  table?: { row: number; cells: number; header: boolean; ruled: boolean };
}

function onEnd(el: Element, fn: () => void): void {
  try {
    el.onEndTag(fn);
  } catch {
    // a void element (br, img, hr): no end tag
  }
}

function element(el: Element, s: State): void {
  const tag = el.tagName.toLowerCase();
  const { out } = s;
  if (SKIP.has(tag)) {
    s.skip++;
    onEnd(el, () => s.skip--);
    return;
  }
  if (s.skip) return;
  const heading = /^h([1-6])$/.exec(tag);
  if (heading) {
    out.breakLine(2);
    out.write(`${"#".repeat(Number(heading[1]))} `);
    onEnd(el, () => out.breakLine(2));
  } else if (BLOCK.has(tag)) {
    out.breakLine(2);
    onEnd(el, () => out.breakLine(2));
  } else if (tag === "blockquote") {
    out.breakLine(2);
    out.write("> ");
    onEnd(el, () => out.breakLine(2));
  } else if (tag === "br") {
    if (s.pre) out.write("\n");
    else out.breakLine(1);
  } else if (tag === "hr") {
    out.breakLine(2);
    out.write("---");
    out.breakLine(2);
  } else if (tag === "ul" || tag === "ol") {
    if (!s.lists.length) out.breakLine(2);
    s.lists.push({ ordered: tag === "ol", n: Number(el.getAttribute("start")) || 1 });
    onEnd(el, () => {
      s.lists.pop();
      out.breakLine(s.lists.length ? 1 : 2);
    });
  } else if (tag === "li") {
    const list = s.lists[s.lists.length - 1];
    out.breakLine(1);
    out.write("  ".repeat(Math.max(0, s.lists.length - 1)));
    out.write(list?.ordered ? `${list.n++}. ` : "- ");
  } else if (tag === "pre") {
    out.breakLine(2);
    out.write("```\n");
    s.pre++;
    onEnd(el, () => {
      s.pre--;
      out.breakLine(1);
      out.write("```");
      out.breakLine(2);
    });
  } else if (s.pre) {
    // inside <pre>: text only
  } else if (tag === "a") {
    const href = el.getAttribute("href")?.trim();
    if (href && !/^javascript:/i.test(href)) {
      out.write("[");
      onEnd(el, () => out.write(`](${href.replace(/\s/g, "%20")})`));
    }
  } else if (tag === "img") {
    const src = el.getAttribute("src")?.trim();
    if (src) out.write(`![${(el.getAttribute("alt") ?? "").replace(/[[\]]/g, "")}](${src.replace(/\s/g, "%20")})`);
  } else if (tag === "strong" || tag === "b" || tag === "em" || tag === "i" || tag === "code" || tag === "del" || tag === "s") {
    const mark = tag === "strong" || tag === "b" ? "**" : tag === "code" ? "`" : tag === "del" || tag === "s" ? "~~" : "_";
    out.write(mark);
    onEnd(el, () => out.write(mark));
  } else if (tag === "table") {
    out.breakLine(2);
    const outer = s.table;
    s.table = { row: 0, cells: 0, header: false, ruled: false };
    onEnd(el, () => {
      s.table = outer;
      out.breakLine(2);
    });
  } else if (tag === "tr" && s.table) {
    const t = s.table;
    out.breakLine(1);
    out.write("|");
    t.cells = 0;
    t.header = false;
    onEnd(el, () => {
      if (t.header && !t.ruled && t.row === 0) {
        out.breakLine(1);
        out.write(`|${" --- |".repeat(Math.max(1, t.cells))}`);
        t.ruled = true;
      }
      t.row++;
    });
  } else if ((tag === "td" || tag === "th") && s.table) {
    const t = s.table;
    if (tag === "th") t.header = true;
    out.write(" ");
    onEnd(el, () => {
      t.cells++;
      out.write(" |");
    });
  }
}

function text(raw: string, s: State): void {
  if (s.skip || !raw) return;
  const decoded = decodeHTML(raw);
  if (s.pre) {
    s.out.write(decoded);
    return;
  }
  let t = decoded.replace(/\s+/g, " ");
  if (s.table) t = t.replace(/\|/g, "\\|");
  if (t.startsWith(" ") && s.out.atLineStart()) t = t.slice(1);
  s.out.write(t);
}

/** Markdown of an HTML document or fragment. */
export async function htmlToMarkdown(html: string): Promise<string> {
  const s: State = { out: new Writer(), skip: 0, pre: 0, lists: [] };
  let pending = "";
  const rewriter = new HTMLRewriter()
    .on("*", {
      element(el) {
        text(pending, s);
        pending = "";
        element(el, s);
      },
    })
    .onDocument({
      text(chunk) {
        pending += chunk.text;
        if (chunk.lastInTextNode) {
          text(pending, s);
          pending = "";
        }
      },
    });
  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })).arrayBuffer();
  text(pending, s);
  return s.out.toString();
}

/** The Markdown splitter over the HTML's Markdown. */
export class HtmlToMarkdownTextSplitter extends MarkdownTextSplitter {
  async splitText(text: string): Promise<string[]> {
    return super.splitText(await htmlToMarkdown(text));
  }
}
