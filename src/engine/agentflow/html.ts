// TipTap editor HTML → Markdown text, as Flowise turns rich-text inputs into prompts (Turndown with
// escaping off). Only values that START with a block tag are converted (AGENTFLOW.md §2.1), so a
// prompt that merely contains XML-ish tags stays as written. Mention spans become their text, which
// is the literal `{{ … }}` reference resolved afterwards.
import { decodeHTML } from "entities/decode";

const BLOCK_START = /^\s*<(?:p|div|h[1-6]|ul|ol|blockquote|pre|table)\b/i;

const isRichText = (value: string): boolean => BLOCK_START.test(value);

interface Element {
  tag: string;
  attrs: string;
  children: Node[];
}
type Node = string | Element;

const VOID = new Set(["br", "hr", "img", "input", "meta", "link", "col", "wbr"]);

/** A forgiving tree of the HTML (TipTap output is well formed; stray closers are ignored). */
function parse(html: string): Node[] {
  const root: Element = { tag: "#root", attrs: "", children: [] };
  const stack: Element[] = [root];
  const re = /<!--[\s\S]*?-->|<\/?([a-zA-Z][\w-]*)([^>]*)>|[^<]+|</g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    const token = m[0];
    const top = stack[stack.length - 1];
    if (token.startsWith("<!--")) continue;
    if (!m[1]) {
      top.children.push(decodeHTML(token).replace(/\u00a0/g, " ")); // &nbsp; is a plain space in a prompt
      continue;
    }
    const tag = m[1].toLowerCase();
    if (token.startsWith("</")) {
      const at = stack.map((e) => e.tag).lastIndexOf(tag);
      if (at > 0) stack.length = at;
      continue;
    }
    const el: Element = { tag, attrs: m[2] ?? "", children: [] };
    top.children.push(el);
    if (!VOID.has(tag) && !token.endsWith("/>")) stack.push(el);
  }
  return root.children;
}

const attr = (el: Element, name: string): string | undefined => new RegExp(`${name}\\s*=\\s*"([^"]*)"`, "i").exec(el.attrs)?.[1];

function inline(nodes: Node[]): string {
  return nodes.map((n) => (typeof n === "string" ? n.replace(/\s+/g, " ") : render(n, ""))).join("");
}

function blocks(nodes: Node[], indent: string): string {
  const out: string[] = [];
  let line = "";
  const flush = () => {
    if (line.trim()) out.push(line.trim());
    line = "";
  };
  for (const n of nodes) {
    if (typeof n !== "string" && BLOCKS.has(n.tag)) {
      flush();
      const text = render(n, indent);
      if (text.trim()) out.push(text);
    } else {
      line += typeof n === "string" ? n.replace(/\s+/g, " ") : render(n, indent);
    }
  }
  flush();
  return out.join("\n\n");
}

const BLOCKS = new Set(["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "table", "hr"]);

function list(el: Element, indent: string): string {
  const ordered = el.tag === "ol";
  let n = Number(attr(el, "start") ?? 1) || 1;
  const items = el.children.filter((c): c is Element => typeof c !== "string" && c.tag === "li");
  return items
    .map((li) => {
      const marker = ordered ? `${n++}. ` : "- ";
      const body = blocks(li.children, indent + " ".repeat(marker.length)).replace(/\n\n+/g, "\n");
      return indent + marker + body.split("\n").join(`\n${indent}${" ".repeat(marker.length)}`);
    })
    .join("\n");
}

function table(el: Element): string {
  const rows: string[][] = [];
  const walk = (nodes: Node[]) => {
    for (const n of nodes) {
      if (typeof n === "string") continue;
      if (n.tag === "tr")
        rows.push(
          n.children
            .filter((c): c is Element => typeof c !== "string" && (c.tag === "td" || c.tag === "th"))
            .map((c) => blocks(c.children, "").replace(/\n+/g, " ")),
        );
      else walk(n.children);
    }
  };
  walk(el.children);
  if (!rows.length) return "";
  const lines = rows.map((r) => `| ${r.join(" | ")} |`);
  lines.splice(1, 0, `| ${rows[0].map(() => "---").join(" | ")} |`);
  return lines.join("\n");
}

function render(el: Element, indent: string): string {
  switch (el.tag) {
    case "br":
      return "\n";
    case "hr":
      return "* * *";
    case "p":
    case "div":
      return blocks(el.children, indent);
    case "h1":
    case "h2":
    case "h3":
    case "h4":
    case "h5":
    case "h6":
      return `${"#".repeat(Number(el.tag[1]))} ${inline(el.children).trim()}`;
    case "ul":
    case "ol":
      return list(el, indent);
    case "li":
      return blocks(el.children, indent);
    case "blockquote":
      return blocks(el.children, indent)
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n");
    case "pre": {
      const text = el.children.map((c) => (typeof c === "string" ? c : textContent(c))).join("");
      return `\`\`\`\n${text.replace(/\n$/, "")}\n\`\`\``;
    }
    case "code":
      return `\`${textContent(el)}\``;
    case "strong":
    case "b": {
      const t = inline(el.children);
      return t.trim() ? `**${t}**` : t;
    }
    case "em":
    case "i": {
      const t = inline(el.children);
      return t.trim() ? `_${t}_` : t;
    }
    case "a": {
      const href = attr(el, "href");
      const t = inline(el.children);
      return href ? `[${t}](${href})` : t;
    }
    case "table":
      return table(el);
    default:
      return inline(el.children);
  }
}

function textContent(el: Element): string {
  return el.children.map((c) => (typeof c === "string" ? c : textContent(c))).join("");
}

/** The Markdown text of a TipTap HTML value (trimmed, as Turndown's output is). */
export function htmlToMarkdown(html: string): string {
  return blocks(parse(html), "")
    .replace(/[ \t]+\n/g, "\n")
    .trim();
}

/** The value as the model should read it: rich text converted, anything else unchanged. */
export const plainText = (value: string): string => (isRichText(value) ? htmlToMarkdown(value) : value);
