// The API reference in Chromium with the network closed: every request to another host is
// refused and recorded, and the page must still render the reference of our OpenAPI document.
/** Adds its step to the browser test (widget.e2e.mjs). */
export async function checkDocsOffline(browser, apiUrl, step) {
  await step("/api/v1/docs renders the API reference with no network (Scalar served by the worker)", async () => {
    const page = await browser.newPage();
    const apiOrigin = new URL(apiUrl).origin;
    const elsewhere = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(apiOrigin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      elsewhere.push(url);
      return route.abort("internetdisconnected");
    });
    try {
      await page.goto(`${apiUrl}/docs`);
      // Scalar shows the document's title, then the operations of its first tag (ping) expanded.
      await page.getByText("edgeflow API").first().waitFor({ timeout: 30_000 });
      await page.getByText("Liveness check").first().waitFor({ timeout: 30_000 });
      await page.waitForTimeout(1000); // late requests (fonts, telemetry) would show up by now
      if (elsewhere.length) throw new Error(`the page asked other hosts: ${[...new Set(elsewhere)].slice(0, 5).join(", ")}`);
    } finally {
      await page.close();
    }
  });
}
