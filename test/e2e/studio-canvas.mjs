// Driving Flowise's canvas (React Flow) as a person does: the Add Nodes panel's search, a real
// HTML5 drag of a node onto the pane (Chromium's drag and drop: the canvas's onDrop reads the node
// from dataTransfer "application/reactflow"), a mouse drag from an output anchor to an input anchor,
// the node's own fields and dialogs, the save button, and the chat pop-up's streamed answer.
import { assert } from "./studio-watch.mjs";

const nodes = (page) => page.locator(".react-flow__node");

/** Each node on the canvas: its id and where it is on the screen. */
export function nodeBoxes(page) {
  return nodes(page).evaluateAll((all) =>
    all.map((n) => {
      const r = n.getBoundingClientRect();
      return { id: n.dataset.id, x: r.x, y: r.y, right: r.right, bottom: r.bottom };
    }),
  );
}

/**
 * Finds `label` in the Add Nodes panel by searching `search`, and drags it onto the pane to the right
 * of the nodes already there. Resolves to the new node's id.
 */
export async function addNode(page, search, label) {
  const pane = page.locator(".react-flow__pane");
  const before = await nodeBoxes(page);
  const paneBox = await pane.boundingBox();
  const right = before.length ? Math.max(...before.map((b) => b.right)) - paneBox.x + 150 : paneBox.width / 2;
  const top = before.length ? Math.min(...before.map((b) => b.y)) - paneBox.y + 50 : 150;
  const searchBox = page.getByPlaceholder(/search nodes/i);
  const item = page.locator('[draggable="true"]').filter({ has: page.getByText(label, { exact: true }) });
  // Chromium's native drag (Playwright's dragTo) now and then drops nothing on a busy machine (no
  // page error, no request; cause unknown): the next attempts drive the same handlers by
  // hand — the item's own dragstart fills a DataTransfer, and the pane gets dragover and drop with it
  // at the same point, as the canvas's onDrop expects. Each such fallback is printed.
  for (let attempt = 1; ; attempt++) {
    await openAddNodes(page);
    await searchBox.fill(search);
    await item.first().waitFor();
    // The list filters after the search box changes: a drag started before it settles can press on
    // another item that moved under the pointer (one CI run dropped a Conversational Retrieval QA Chain).
    await listSettled(page.locator('[draggable="true"]'));
    if (attempt === 1) await item.first().dragTo(pane, { targetPosition: { x: right, y: top } });
    else await syntheticDrop(item.first(), { x: paneBox.x + right, y: paneBox.y + top });
    const appeared = await settled(nodes(page).nth(before.length), 3_000);
    if (appeared) break;
    assert(attempt < 3, `dropping ${label} on the canvas added no node (${attempt} attempts)`);
    console.log(`    (dragging ${label} dropped nothing: attempt ${attempt + 1} by dispatched drag events)`);
  }
  await closeAddNodes(page);
  const added = (await nodeBoxes(page)).filter((b) => !before.some((o) => o.id === b.id));
  assert(added.length === 1, `dropping ${label} added ${added.length} nodes`);
  const text = await page.getByTestId(`rf__node-${added[0].id}`).innerText();
  assert(text.includes(label), `dropping ${label} added another node: ${text.split("\n")[0]}`);
  return added[0].id;
}

/** Waits until the items' texts stay the same over three looks 150 ms apart (at most 5 s). */
async function listSettled(items) {
  let last = "";
  let same = 0;
  for (const end = Date.now() + 5_000; Date.now() < end && same < 2; ) {
    const now = (await items.allInnerTexts()).join("|");
    same = now === last ? same + 1 : 0;
    last = now;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Drags `item` to the page point `at` through dispatched DragEvents sharing one DataTransfer. */
function syntheticDrop(item, at) {
  return item.evaluate((el, { x, y }) => {
    const dataTransfer = new DataTransfer();
    el.dispatchEvent(new DragEvent("dragstart", { bubbles: true, cancelable: true, dataTransfer }));
    const target = document.elementFromPoint(x, y);
    for (const type of ["dragenter", "dragover", "drop"]) {
      target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer, clientX: x, clientY: y }));
    }
    el.dispatchEvent(new DragEvent("dragend", { bubbles: true, dataTransfer }));
  }, at);
}

const settled = (locator, timeout) =>
  locator.waitFor({ timeout }).then(
    () => true,
    () => false,
  );

/**
 * Opens the Add Nodes panel. Its button shows a plus while the panel is closed and a minus while it
 * is open; a click elsewhere (a drop's mouse-up) closes it a moment later, and it fades out after.
 */
async function openAddNodes(page) {
  const toggle = page.getByRole("button", { name: "add", exact: true });
  const [plus, minus] = [toggle.locator("svg.tabler-icon-plus"), toggle.locator("svg.tabler-icon-minus")];
  for (let i = 0; i < 3; i++) {
    if ((await minus.count()) && !(await settled(plus, 1_000))) return; // open, and not closing
    await toggle.click();
    if (await settled(minus, 3_000)) return;
  }
  throw new Error("the Add Nodes panel does not open");
}

/**
 * Waits until the Add Nodes panel is gone, closing it if it stays open: while it fades out after a
 * drop it still takes the pointer, and a drag between anchors that starts over it drags one of its
 * items onto the canvas instead (two CI runs saved a Conversational Retrieval QA Chain that way).
 */
async function closeAddNodes(page) {
  const toggle = page.getByRole("button", { name: "add", exact: true });
  const searchBox = page.getByPlaceholder(/search nodes/i);
  if (await settled(toggle.locator("svg.tabler-icon-minus"), 500)) {
    if (!(await settled(toggle.locator("svg.tabler-icon-plus"), 1_000))) await toggle.click();
  }
  await searchBox.waitFor({ state: "hidden", timeout: 5_000 });
}

/**
 * The chatflow canvas fits its first node to the view, as tall as the screen: zoom out until it
 * takes at most 3/4 of the pane's height, then drag the pane so that it sits at the top left.
 */
export async function makeRoom(page) {
  const paneBox = await page.locator(".react-flow__pane").boundingBox();
  for (let i = 0; i < 8; i++) {
    const [b] = await nodeBoxes(page);
    if (b.bottom - b.y < paneBox.height * 0.75) break;
    await page.getByRole("button", { name: "zoom out" }).click();
  }
  const [b] = await nodeBoxes(page);
  const from = { x: paneBox.x + paneBox.width - 60, y: paneBox.y + paneBox.height - 60 };
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x - (b.x - paneBox.x - 60), from.y - (b.y - paneBox.y - 30), { steps: 10 });
  await page.mouse.up();
}

/**
 * Drags from the anchor whose handle id starts with `from` to the one starting with `to`. A drag
 * that made no edge is made once more from freshly read anchors: a node just dropped can still be
 * moving when its anchor is first read (1 CI run in 7 drew no edge); a second miss fails.
 */
export async function connect(page, from, to) {
  const edges = page.locator(".react-flow__edge");
  const count = await edges.count();
  for (let attempt = 1; ; attempt++) {
    const a = await page.locator(`.react-flow__handle.source[data-handleid^="${from}"]`).boundingBox();
    const b = await page.locator(`.react-flow__handle.target[data-handleid^="${to}"]`).boundingBox();
    assert(a && b, `anchors ${from} / ${to} are not on the canvas`);
    await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 10 });
    await page.mouse.up();
    try {
      await edges.nth(count).waitFor({ timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt === 2) throw err;
    }
  }
}

/** Opens the drop-down `input` (an MUI Autocomplete) through its Open button and picks the option named `option`. */
export async function pick(page, input, option) {
  const box = input.locator("xpath=ancestor::div[contains(@class, 'MuiAutocomplete-root')]");
  await box.getByRole("button", { name: "Open" }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

/** Saves a flow never saved: the save button, then the name dialog. Resolves to the id in the URL. */
export async function saveNew(page, button, name) {
  await page.getByRole("button", { name: button }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("textbox").fill(name);
  await dialog.getByRole("button", { name: "Save" }).click();
  await page.waitForURL(/\/(canvas|agentcanvas)\/[\w-]+$/, { timeout: 15_000 });
  return new URL(page.url()).pathname.split("/").at(-1);
}

/** The texts of the newest answer in the chat pop-up, read every 50 ms until it contains `done`. */
async function streamedAnswer(page, done, before) {
  const answers = page.locator(".messagelist > div:has(img.boticon) .markdownanswer");
  const seen = [];
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const texts = await answers.allInnerTexts();
    const text = texts.length > before ? texts.at(-1) : undefined;
    if (text !== undefined && text !== seen.at(-1)) seen.push(text);
    if (text?.includes(done)) return seen;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the chat never showed ${JSON.stringify(done)} (answers seen: ${JSON.stringify(seen)})`);
}

/**
 * Opens the canvas's chat, asks `question`, and resolves to the successive texts of the answer as it
 * streamed in (the last one contains `done`).
 */
export async function chat(page, question, done) {
  const input = page.getByPlaceholder("Type your question...");
  if (!(await input.isVisible())) await page.getByRole("button", { name: "chat", exact: true }).click();
  await input.waitFor();
  const before = await page.locator(".messagelist > div:has(img.boticon) .markdownanswer").count();
  await input.fill(question);
  const answered = page.waitForResponse((r) => r.request().method() === "POST" && /\/api\/v1\/internal-prediction\//.test(r.url()));
  await input.press("Enter");
  const res = await answered;
  assert(res.status() < 400, `the chat's POST ${new URL(res.url()).pathname} answered ${res.status()}`);
  return streamedAnswer(page, done, before);
}
