// cheerioWebScraper as Flowise 3.1.4 runs it: one page, or the pages a crawl / a sitemap / the
// studio's selected links name (limit, PDFs left out, a failing page among many left out), through
// a document store upsert, against the small site of test/standin/browser-rendering.mjs.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, expectError, uuid } from "../helpers";
import { LOCAL, newStore, upsert } from "../routes/document-store-helpers";
import { setVars } from "../security/helpers";

const base = () => inject("browserRenderingUrl");
const siteOf = (marker: string) => `${base()}/web/${marker}`;

async function load(config: Record<string, unknown>, expected = 200) {
  const store = await newStore("web scrapers");
  return upsert(store.id, { ...LOCAL, loader: { name: "cheerioWebScraper", config } }, expected);
}
const sources = (up: { addedDocs: { metadata: { source: string } }[] }) => up.addedDocs.map((d) => d.metadata.source);

describe("cheerioWebScraper: crawl, sitemap, selected links", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ OUTBOUND_ALLOW: new URL(inject("browserRenderingUrl")).host });
  });
  afterAll(() => restore());

  it("webCrawl reads every page the crawl finds: PDFs and a failing page left out, metadata shaped on each", async () => {
    const site = siteOf(`crawl-${uuid()}`);
    const up = await load({
      url: `${site}/`,
      relativeLinksMethod: "webCrawl",
      limit: "10",
      metadata: '{"site":"docs"}',
      omitMetadataKeys: "title",
    });
    expect(sources(up)).toEqual([site, `${site}/a`, `${site}/b`]);
    expect(up.addedDocs.map((d: { pageContent: string }) => d.pageContent)).toEqual([
      "Plain home page.moremoremoremoremoremore",
      "Plain page A.more",
      "Plain page B.",
    ]);
    expect(up.addedDocs[1].metadata).toMatchObject({ source: `${site}/a`, site: "docs" });
    expect(up.addedDocs[1].metadata.title).toBeUndefined();
  });

  it("the limit bounds the pages (an empty limit is 10); below 0 is a 400", async () => {
    const site = siteOf(`limit-${uuid()}`);
    expect(sources(await load({ url: site, relativeLinksMethod: "webCrawl", limit: 2 }))).toEqual([site, `${site}/a`]);
    expect(sources(await load({ url: site, relativeLinksMethod: "webCrawl", limit: "" }))).toHaveLength(3);
    const bad = await load({ url: site, relativeLinksMethod: "webCrawl", limit: "-1" }, 400);
    expect(bad.message).toMatch(/limit cannot be less than 0/);
  });

  it("scrapeXMLSitemap reads the sitemap's pages; an empty sitemap is a 400", async () => {
    const site = siteOf(`map-${uuid()}`);
    const up = await load({ url: `${site}/sitemap.xml`, relativeLinksMethod: "scrapeXMLSitemap", limit: "0", selector: "p" });
    expect(sources(up)).toEqual([`${site}/a`, `${site}/b`]);
    expect(up.addedDocs[0].pageContent).toBe("Plain page A.");
    const none = await load({ url: `${site}/empty.xml`, relativeLinksMethod: "scrapeXMLSitemap" }, 400);
    expect(none.message).toMatch(/no relative links found/);
  });

  it("selectedLinks (the studio's Manage links) come first, sliced by the limit, without a crawl", async () => {
    const marker = `picked-${uuid()}`;
    const site = siteOf(marker);
    const up = await load({ url: site, relativeLinksMethod: "webCrawl", limit: "2", selectedLinks: [`${site}/b`, `${site}/a`, site] });
    expect(sources(up)).toEqual([`${site}/b`, `${site}/a`]);
    // Without a method too, as Flowise reads them.
    expect(sources(await load({ url: site, selectedLinks: [`${site}/doc.pdf`, `${site}/a`] }))).toEqual([`${site}/a`]);
  });

  it("one page failing is the clear error it was; of many, only when none can be read", async () => {
    const site = siteOf(`fail-${uuid()}`);
    expect((await load({ url: `${site}/broken` }, 400)).message).toMatch(/answered 500/);
    expect((await load({ url: `${site}/broken`, relativeLinksMethod: "webCrawl" }, 400)).message).toMatch(/error status/);
    expect((await load({ url: site, selectedLinks: [`${site}/broken`, `${site}/nowhere`] }, 400)).message).toMatch(/answered 500/);
    expect((await load({ url: `${site}/doc.pdf` }, 400)).message).toMatch(/does not read PDF files/);
    // A selected link on a private address is refused by the outbound policy, never fetched.
    const refused = await load({ url: site, selectedLinks: ["http://169.254.169.254/latest/meta-data"] }, 400);
    expect(refused.message).toMatch(/refused/);
  });

  it("GET /fetch-links takes the node's own name for the sitemap method", async () => {
    const site = siteOf(`links-${uuid()}`);
    const q = new URLSearchParams({ url: `${site}/sitemap.xml`, relativeLinksMethod: "scrapeXMLSitemap", limit: "10" });
    const res = await call("GET", `/fetch-links?${q}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "OK", links: [`${site}/a`, `${site}/b`, `${site}/doc.pdf`] });
    await expectError(await call("GET", `/fetch-links?${new URLSearchParams({ url: site, relativeLinksMethod: "deep" })}`), 400);
  });
});
