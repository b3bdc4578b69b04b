// The studio: Flowise's own web UI (npm `flowise-ui`, its `build/` folder) as the worker's static
// assets, served at the root of the origin by the asset layer (wrangler.toml [assets]).
//
// Not an npm dependency: the package declares ~70 runtime dependencies its build already contains,
// and installing them would add hundreds of MB to every `npm install`. Instead package.json's
// `studio` pins a version and the registry's sha512 integrity; the tarball is fetched once with
// `npm pack` (the registry npm is configured with), checked against that integrity, cached under
// node_modules/.cache, and only `build/` is extracted. The page is then made self-contained:
//   - index.html loses what it loads from other hosts (Google Fonts, a tracking script) and its
//     inline scripts (the CSP forbids them); a same-origin script takes their one useful job
//     (`global` for the bundle) and dismisses the "We're sunsetting Flowise" banner;
//   - `_headers` gives every page a Content-Security-Policy allowing only the origin itself (the
//     bundle's calls to api.github.com are blocked, never made), hashed files a year of caching,
//     everything else `no-cache`.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { root, toolEnv } from "./local.mjs";
import { tgzEntries } from "./tar.mjs";

const pin = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).studio;
export const STUDIO = { name: pin.package, version: pin.version, integrity: pin.integrity };

const CACHE_DIR = join(root, "node_modules", ".cache", "edgeflow-studio");
const BUILD_PREFIX = "package/build/";

/** The same-origin script index.html loads first (its name must not clash with the UI's files). */
export const STUDIO_INIT = "edgeflow-studio.js";

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // MUI (emotion) and React Flow inject <style> elements and style attributes.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  // The chat's voice: a recording's preview is a data: URL, spoken answers play from a MediaSource's blob: URL.
  "media-src 'self' blob: data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

// Every path the asset layer answers (the worker's own, /api/*, never get these): rules of
// Cloudflare's `_headers` format. A later matching rule appends to a header an earlier one set, so
// /assets/* first removes the default Cache-Control ("! Cache-Control") and then sets its own.
const HEADERS_FILE = `/*
  Content-Security-Policy: ${CONTENT_SECURITY_POLICY}
  X-Content-Type-Options: nosniff
  Referrer-Policy: same-origin
  X-Frame-Options: SAMEORIGIN
  Cache-Control: no-cache
/assets/*
  ! Cache-Control
  Cache-Control: public, max-age=31536000, immutable
`;

const INIT_SCRIPT = `// edgeflow: runs before Flowise's bundle (a same-origin file: the page's CSP forbids inline scripts).
// What index.html's inline script did: some of the bundle's libraries read \`global\`.
if (window.global === undefined) window.global = window;
// Flowise's "We're sunsetting Flowise" banner, dismissed (the UI keeps its dismissal here).
try {
  localStorage.setItem("flowise.announcementDismissed", "true");
} catch {}
`;

const integrityOf = (bytes) => `sha512-${createHash("sha512").update(bytes).digest("base64")}`;

/** The pinned tarball: from the cache, or fetched with `npm pack`; throws unless its integrity matches the pin. */
function tarball() {
  const cached = join(CACHE_DIR, `${STUDIO.name}-${STUDIO.version}.tgz`);
  if (existsSync(cached)) {
    const bytes = readFileSync(cached);
    if (integrityOf(bytes) === STUDIO.integrity) return bytes;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = mkdtempSync(join(CACHE_DIR, "pack-"));
  try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const spec = `${STUDIO.name}@${STUDIO.version}`;
    const run = spawnSync(npm, ["pack", spec, "--pack-destination", tmp, "--ignore-scripts", "--silent"], {
      cwd: root,
      env: toolEnv,
      encoding: "utf8",
      shell: process.platform === "win32",
    });
    const file = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    if (run.status !== 0 || !file)
      throw new Error(`studio: \`npm pack ${spec}\` failed: ${(run.stderr || run.error?.message || "").trim()}`);
    const bytes = readFileSync(join(tmp, file));
    const got = integrityOf(bytes);
    if (got !== STUDIO.integrity) throw new Error(`studio: ${spec} does not match package.json's pinned integrity (got ${got})`);
    renameSync(join(tmp, file), cached); // atomic: another build reading the cache never sees half a file
    return bytes;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** index.html with nothing loaded from another host and no inline script; the init script first. */
export function transformIndexHtml(html) {
  const external = /^(https?:)?\/\//i;
  let out = html
    // <link> to another host: Google Fonts' stylesheet and preconnect.
    .replace(/<link\b[^>]*>/gi, (tag) => (external.test(/\bhref\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? "") ? "" : tag))
    // <script> from another host (the tracking script) and inline scripts (its loader, `global`).
    .replace(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi, (tag, attrs) => {
      const src = /\bsrc\s*=\s*["']([^"']*)["']/i.exec(attrs)?.[1];
      return src === undefined || external.test(src) ? "" : tag;
    })
    // Relative icon and manifest links would resolve under a client route (/canvas/favicon.ico).
    .replace(/(<link\b[^>]*\bhref=")(?![/#]|[a-z]+:)/gi, "$1/")
    .replace(/\n\s*\n(\s*\n)+/g, "\n");
  const entry = /<script\b[^>]*type="module"[^>]*src="\/assets\/[^"]+"[^>]*><\/script>/.exec(out);
  if (!entry) throw new Error("studio: index.html has no module script under /assets/ (has flowise-ui changed its layout?)");
  out = out.replace(entry[0], `<script src="/${STUDIO_INIT}"></script>\n      ${entry[0]}`);
  const left = /<(?:script|link)\b[^>]*\b(?:src|href)\s*=\s*["'](?:https?:)?\/\//i.exec(out);
  if (left) throw new Error(`studio: index.html still loads from another host: ${left[0]}`);
  return out;
}

/** Writes `content` unless the file already holds it (an unchanged file keeps its mtime: no reload). */
function writeIfChanged(path, content) {
  if (existsSync(path) && readFileSync(path, "utf8") === content) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/**
 * Puts the studio into `assetsDir`: the UI's build (every entry but `keep`, the worker's own
 * folder, is replaced when the pin or this file changed), the transformed index.html, the init
 * script and `_headers`. `stampFile` (outside the assets) records what was extracted.
 */
export function buildStudio(assetsDir, { keep, stampFile }) {
  const self = readFileSync(fileURLToPath(import.meta.url));
  const stamp = `${STUDIO.name}@${STUDIO.version} ${STUDIO.integrity} ${createHash("sha256").update(self).digest("hex")}\n`;
  const fresh = existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp && existsSync(join(assetsDir, "index.html"));
  if (!fresh) {
    const bytes = tarball();
    mkdirSync(assetsDir, { recursive: true });
    for (const entry of readdirSync(assetsDir)) if (entry !== keep) rmSync(join(assetsDir, entry), { recursive: true, force: true });
    let index;
    for (const { path, kind, body } of tgzEntries(bytes)) {
      if (kind !== "file" || !path.startsWith(BUILD_PREFIX)) continue;
      const rel = path.slice(BUILD_PREFIX.length);
      if (rel === "index.html") index = body.toString("utf8");
      else {
        mkdirSync(dirname(join(assetsDir, rel)), { recursive: true });
        writeFileSync(join(assetsDir, rel), body);
      }
    }
    if (index === undefined) throw new Error(`studio: ${STUDIO.name}@${STUDIO.version} has no build/index.html`);
    writeFileSync(join(assetsDir, "index.html"), transformIndexHtml(index));
    writeFileSync(stampFile, stamp);
  }
  writeIfChanged(join(assetsDir, STUDIO_INIT), INIT_SCRIPT);
  writeIfChanged(join(assetsDir, "_headers"), HEADERS_FILE);
}
