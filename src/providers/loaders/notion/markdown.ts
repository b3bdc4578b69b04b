// Notion blocks as markdown, close to what notion-to-md (LangChain's NotionAPILoader) writes: rich
// text with its annotations (bold, italic, code, strikethrough, links), headings, lists, to-dos,
// quotes, callouts, code, equations, images and links, tables as rows; children indented under
// their block. Page properties as LangChain reads them (getPropValue), for the documents' metadata.

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Rich text as markdown (notion-to-md's annotatePlainText, then the link). */
export function richText(value: unknown): string {
  return arr(value)
    .map((t) => {
      let s = typeof t.plain_text === "string" ? t.plain_text : "";
      const a = isObject(t.annotations) ? t.annotations : {};
      if (!s.trim()) return s;
      if (a.code) s = `\`${s}\``;
      if (a.bold) s = `**${s}**`;
      if (a.italic) s = `_${s}_`;
      if (a.strikethrough) s = `~~${s}~~`;
      if (typeof t.href === "string" && t.href) s = `[${s}](${t.href})`;
      return s;
    })
    .join("");
}

const fileUrl = (v: Obj): string => {
  const f = isObject(v.file) ? v.file : isObject(v.external) ? v.external : {};
  return typeof f.url === "string" ? f.url : "";
};

/** One block's own markdown (without its children). */
export function blockMarkdown(block: Obj): string {
  const type = typeof block.type === "string" ? block.type : "";
  const b = isObject(block[type]) ? (block[type] as Obj) : {};
  const t = richText(b.rich_text);
  switch (type) {
    case "paragraph":
      return t;
    case "heading_1":
      return `# ${t}`;
    case "heading_2":
      return `## ${t}`;
    case "heading_3":
      return `### ${t}`;
    case "bulleted_list_item":
      return `- ${t}`;
    case "numbered_list_item":
      return `1. ${t}`;
    case "to_do":
      return `- [${b.checked ? "x" : " "}] ${t}`;
    case "quote":
      return `> ${t}`;
    case "callout":
      return `> ${isObject(b.icon) && typeof b.icon.emoji === "string" ? `${b.icon.emoji} ` : ""}${t}`;
    case "toggle":
      return t;
    case "code":
      return `\`\`\`${typeof b.language === "string" ? b.language : ""}\n${t}\n\`\`\``;
    case "equation":
      return `$$ ${typeof b.expression === "string" ? b.expression : ""} $$`;
    case "divider":
      return "---";
    case "image":
    case "video":
    case "file":
    case "pdf":
      return `![${richText(b.caption)}](${fileUrl(b)})`;
    case "bookmark":
    case "embed":
    case "link_preview":
      return typeof b.url === "string" ? `[${b.url}](${b.url})` : "";
    case "table_row":
      return `| ${(Array.isArray(b.cells) ? b.cells : []).map((c) => richText(c)).join(" | ")} |`;
    default:
      return t;
  }
}

/** A property's value as text (LangChain's getPropValue). */
export function propValue(prop: Obj): string {
  const type = typeof prop.type === "string" ? prop.type : "";
  const v = prop[type];
  const names = () =>
    `[${arr(v)
      .map((x) => `"${x.name}"`)
      .join(", ")}]`;
  switch (type) {
    case "number":
      return v === null || v === undefined ? "" : String(v);
    case "url":
    case "email":
    case "phone_number":
    case "created_time":
    case "last_edited_time":
      return typeof v === "string" ? v : "";
    case "select":
    case "status":
      return isObject(v) && typeof v.name === "string" ? v.name : "";
    case "multi_select":
    case "files":
      return names();
    case "date":
      return isObject(v) ? `${v.start ?? ""}${v.end ? ` - ${v.end}` : ""}` : "";
    case "checkbox":
      return String(v);
    case "title":
    case "rich_text":
      return richText(v);
    case "created_by":
    case "last_edited_by":
      return isObject(v) ? `["${v.object}", "${v.id}"]` : "";
    case "people":
      return `[${arr(v)
        .map((p) => `["${p.object}", "${p.id}"]`)
        .join(", ")}]`;
    case "unique_id":
      return isObject(v) ? `${v.prefix || ""}${v.number}` : "";
    case "relation":
      return `[${arr(v)
        .map((r) => `"${r.id}"`)
        .join(", ")}]`;
    default:
      return `Unsupported type: ${type}`;
  }
}

/** A page's properties by name, the title also as `_title` (LangChain's parsePageProperties). */
export function pageProperties(page: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, prop] of Object.entries(isObject(page.properties) ? page.properties : {})) {
    if (!isObject(prop)) continue;
    out[name] = propValue(prop);
    if (prop.type === "title") out._title = out[name];
  }
  return out;
}
