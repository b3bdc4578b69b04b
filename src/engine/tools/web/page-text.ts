// A page's text as LangChain's WebBrowser reads it (cheerio there, the Workers HTMLRewriter here):
// each element's own text (its direct text, not its children's), in document order, elements
// inside script, style and svg left out; a link as ` [text](absolute url)` (an image's alt text
// added); a summary reads only the body's elements. Runs of new lines become spaces.
import { decodeHTML } from "entities/decode";

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);

interface Node {
  tag: string;
  own: string;
  href?: string;
  alt?: string;
  skipped: boolean;
  inBody: boolean;
}

export async function pageText(html: string, baseUrl: string, summary: boolean): Promise<string> {
  const order: Node[] = [];
  const stack: Node[] = [];
  const rewriter = new HTMLRewriter()
    .on("*", {
      element(el) {
        const parent = stack.at(-1);
        const tag = el.tagName.toLowerCase();
        const node: Node = {
          tag,
          own: "",
          href: tag === "a" ? (el.getAttribute("href") ?? undefined) : undefined,
          skipped: !!parent?.skipped || tag === "script" || tag === "style" || tag === "svg",
          inBody: !!parent && (parent.inBody || parent.tag === "body"),
        };
        if (tag === "img" && parent?.tag === "a" && !parent.alt) parent.alt = el.getAttribute("alt")?.trim() || undefined;
        order.push(node);
        if (VOID.has(tag)) return;
        stack.push(node);
        el.onEndTag(() => {
          const at = stack.lastIndexOf(node);
          if (at >= 0) stack.length = at;
        });
      },
    })
    .onDocument({
      text(t) {
        const top = stack.at(-1);
        if (top) top.own += t.text;
      },
    });
  await rewriter.transform(new Response(html)).text();

  let text = "";
  for (const node of order) {
    if (node.skipped || (summary && !node.inBody)) continue;
    let content = decodeHTML(node.own).trim();
    if (node.tag === "a" && node.href) {
      let href = node.href;
      if (!href.startsWith("http")) {
        try {
          href = new URL(href, baseUrl).toString();
        } catch {
          href = "";
        }
      }
      if (node.alt) content += ` ${node.alt}`;
      text += ` [${content}](${href})`;
    } else if (content !== "") text += ` ${content}`;
  }
  return text.trim().replace(/\n+/g, " ");
}
