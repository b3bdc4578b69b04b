// The document store wizard in Chromium, through Flowise's own pages (studio-journey.e2e.mjs runs it
// on the store the journey just opened, on the same watched page: any /api/v1 call answered 4xx or
// 5xx fails it): a PDF uploaded on the loader page (Pdf File), its chunks previewed with the recursive
// splitter, processed; embeddings, vector store and record manager picked on the vector store page
// and upserted; the store queried from the retrieval page. Each part is checked on the page and in
// what the API stored.

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

const PARAGRAPHS = [
  "The harbour master rings the bell at dawn when the fishing boats return with herring and mackerel.",
  "Lighthouse keepers trim the lamp wicks every evening and log the passing ships in a leather book.",
  "Sailmakers stitch canvas in the loft above the chandlery, where tar and rope are sold by the yard.",
];
const FILE = "harbour.pdf";

/** A one-page PDF (Helvetica), one line per paragraph: what a user uploads on the Pdf File loader. */
function pdfOf(lines) {
  const esc = (t) => t.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 12 Tf 14 TL 72 720 Td ${lines.map((l) => `(${esc(l)}) Tj T*`).join(" ")} ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let out = "%PDF-1.4\n";
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

const dialog = (page) => page.locator(".MuiDialog-root");

/** Picks an option of one of the page's MUI drop-downs (Autocomplete), found by the value it shows. */
async function pickOption(page, showing, option) {
  const box = page.locator(".MuiAutocomplete-root").filter({ has: page.locator(`input[value="${showing}"]`) });
  await box.getByRole("button", { name: "Open" }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

/** Picks a provider from the vector store page's list dialog. */
async function choose(page, button, label) {
  await page.getByRole("button", { name: button }).first().click();
  await dialog(page).getByText(label, { exact: true }).first().click();
  await dialog(page).waitFor({ state: "hidden" });
}

async function until(what, check, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} (waited ${ms} ms)`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The loader page: a file uploaded, previewed with a splitter, processed. */
async function addLoader({ page, api }, storeId) {
  await page.getByRole("button", { name: "Add Document Loader" }).first().click();
  await dialog(page).getByText("Pdf File", { exact: true }).click();
  await page.waitForURL(new RegExp(`/document-stores/${storeId}/pdfFile$`), { timeout: 10_000 });
  await page
    .locator("input[type=file]")
    .first()
    .setInputFiles({ name: FILE, mimeType: "application/pdf", buffer: pdfOf(PARAGRAPHS) });
  await pickOption(page, "None", "Recursive Character Text Splitter");
  const chunkSize = page.locator("input[name=chunkSize]").first();
  await chunkSize.fill("120");
  await page.locator("input[name=chunkOverlap]").first().fill("0");
  await page.locator("button[title=Preview]").first().click();
  await page.getByText(`${PARAGRAPHS.length} of ${PARAGRAPHS.length} Chunks`).waitFor({ timeout: 15_000 });
  await page.getByText(PARAGRAPHS[1]).first().waitFor();
  const before = await api("GET", `/document-store/store/${storeId}`);
  assert(JSON.parse(before.loaders).length === 0, "the preview stored a loader");

  await page.getByRole("button", { name: "Process" }).click();
  await page.waitForURL(new RegExp(`/document-stores/${storeId}$`), { timeout: 15_000 });
  const loader = await until("the loader was not processed", async () => {
    const [l] = JSON.parse((await api("GET", `/document-store/store/${storeId}`)).loaders);
    return l?.status === "SYNC" && l;
  });
  assert(loader.totalChunks === PARAGRAPHS.length && loader.files[0]?.name === FILE, `loader: ${JSON.stringify(loader)}`);
  assert(loader.splitterId === "recursiveCharacterTextSplitter", `splitter: ${loader.splitterId}`);
  // The store page lists it (its file as the source) once it has reloaded.
  await page.reload();
  await page.locator("tr", { hasText: FILE }).first().waitFor({ timeout: 10_000 });
}

/** The vector store page: embeddings, vector store, record manager picked; Upsert; the result dialog. */
async function upsert({ page, api }, storeId) {
  await page.getByRole("button", { name: "More Actions" }).click();
  await page.getByRole("menuitem", { name: "Upsert All Chunks" }).click();
  await page.waitForURL(new RegExp(`/document-stores/vector/${storeId}$`), { timeout: 10_000 });
  await choose(page, "Select Embeddings", "Local Hash Embeddings");
  await choose(page, "Select Vector Store", "Local Vector Store");
  await choose(page, "Select Record Manager", "SQLite Record Manager");
  await page.getByRole("button", { name: "Upsert", exact: true }).click();
  await dialog(page).getByRole("button", { name: "Test Retrieval" }).waitFor({ timeout: 20_000 });
  const shown = await dialog(page).innerText();
  assert(new RegExp(`${PARAGRAPHS.length}\\s*\\n?\\s*Added|Added[^\\d]*${PARAGRAPHS.length}`, "i").test(shown), `result dialog: ${shown}`);
  const store = await api("GET", `/document-store/store/${storeId}`);
  assert(store.status === "UPSERTED", `store status: ${store.status}`);
  assert(JSON.parse(store.embeddingConfig).name === "localHashEmbeddings", `embedding: ${store.embeddingConfig}`);
  assert(JSON.parse(store.recordManagerConfig).name === "SQLiteRecordManager", `record manager: ${store.recordManagerConfig}`);
  await dialog(page).getByRole("button", { name: "Test Retrieval" }).click();
}

/** The retrieval page: a question answered with the right chunk. */
async function query({ page }, storeId) {
  await page.waitForURL(new RegExp(`/document-stores/query/${storeId}$`), { timeout: 10_000 });
  const box = page.locator("textarea").first();
  await box.fill("who trims the lamp wicks of the lighthouse");
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/document-store/vectorstore/query");
  await box.press("Enter");
  const res = await answered;
  const body = await res.json();
  assert(res.status() === 200 && body.docs[0]?.pageContent === PARAGRAPHS[1], `query answer: ${JSON.stringify(body).slice(0, 300)}`);
  await page.getByText("Retrieved Documents").first().waitFor();
  await page.getByText(PARAGRAPHS[1]).first().waitFor({ timeout: 10_000 });
}

/**
 * The store as a tool: on a custom assistant's page, with ChatOpenAI (the stand-in, the journey's
 * credential) and the store as its knowledge, Generate writes the knowledge's description — the
 * stand-in echoes what the model was given, the store's first chunks.
 */
export async function toolDescriptionGenerated({ page, origin, standinUrl }, credentialName, storeName) {
  await page.goto(`${origin}/assistants/custom`);
  await page.getByRole("button", { name: "Add" }).click();
  await dialog(page).locator("input").first().fill("wizard tool writer");
  await dialog(page).getByRole("button", { name: "Add" }).click();
  await page.waitForURL(/\/assistants\/custom\/[0-9a-f-]{36}$/, { timeout: 10_000 });
  const boxes = page.locator(".MuiAutocomplete-root");
  await boxes.nth(0).getByRole("button", { name: "Open" }).click();
  await page.getByRole("option", { name: "ChatOpenAI", exact: true }).first().click();
  // Then: Select Model, Knowledge, Connect Credential, Model Name.
  await boxes.nth(2).getByRole("button", { name: "Open" }).click();
  await page.getByRole("option", { name: credentialName }).first().click();
  await page.locator("input[name=basepath]").fill(`${standinUrl}/v1`);
  await boxes.nth(1).getByRole("button", { name: "Open" }).click();
  await page.getByRole("option").filter({ hasText: storeName }).first().click();
  await page.keyboard.press("Escape");
  const answered = page.waitForResponse((r) => /\/api\/v1\/document-store\/generate-tool-desc\//.test(r.url()));
  await page.locator("button[title='Generate description using model']").click();
  const res = await answered;
  const { content } = await res.json();
  assert(res.status() === 200 && content?.startsWith("echo: ") && content.includes(PARAGRAPHS[0]), `generated: ${content}`);
  await until("the description is not in its field", async () =>
    (await page.locator("textarea").evaluateAll((all) => all.map((t) => t.value))).some((v) => v.startsWith("echo: ")),
  );
}

/**
 * Then, on the same page, the assistant saved and asked in its Preview: Flowise's UI embeds a chat
 * there (flowise-embed) whose calls (/public-chatbotConfig, /prediction) carry the session cookie
 * but not the UI's header, for a flow that is not public. The answer is the stand-in's (stored
 * EXTERNAL, as Flowise's preview stores it); its Tool Agent names its model `{{chatOpenAI_0}}`.
 */
export async function assistantPreviewAnswers({ page, api }) {
  const id = /\/assistants\/custom\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
  assert(id, `cannot run: not on a custom assistant's page (${page.url()})`);
  await page.locator("textarea").first().fill("You are the e2e assistant.");
  const saved = page.waitForResponse((r) => r.request().method() === "PUT" && r.url().endsWith(`/api/v1/assistants/${id}`));
  await page.getByRole("button", { name: "Save Assistant" }).click();
  assert((await saved).status() === 200, `Save Assistant answered ${(await saved).status()}`);
  // Right after the first save the Preview is there but empty: flowise-embed's full-page chat starts
  // only once its element is in view (an IntersectionObserver), and Save sits below it. Scrolled up,
  // as the person who saved would.
  await page.locator("flowise-fullchatbot").scrollIntoViewIfNeeded();
  const question = "preview socks for the e2e assistant";
  const input = page.getByPlaceholder("Type your question");
  await input.waitFor({ timeout: 15_000 });
  const answered = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith(`/api/v1/prediction/${id}`));
  await input.fill(question);
  await input.press("Enter");
  assert((await answered).status() === 200, `the preview's POST /prediction answered ${(await answered).status()}`);
  await page.getByText(`echo: ${question}`).first().waitFor({ timeout: 20_000 });
  const stored = await api("GET", `/chatmessage/${id}`);
  assert(
    stored.length === 2 && stored.every((m) => m.chatType === "EXTERNAL") && stored[1].content === `echo: ${question}`,
    `stored: ${JSON.stringify(stored.map((m) => [m.role, m.chatType, m.content]))}`,
  );
}

/** The wizard on the store page the journey has open. */
export async function documentStoreWizard(ctx) {
  const storeId = /\/document-stores\/([0-9a-f-]{36})$/.exec(ctx.page.url())?.[1];
  assert(storeId, `cannot run: not on a document store's page (${ctx.page.url()})`);
  await addLoader(ctx, storeId);
  await upsert(ctx, storeId);
  await query(ctx, storeId);
}
