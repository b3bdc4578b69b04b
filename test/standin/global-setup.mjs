// vitest globalSetup (runs in Node): starts the OpenAI-compatible stand-in and a port that refuses
// connections, and hands their URLs to the tests (`inject("standinUrl")`, `inject("closedUrl")`).
import { createServer } from "node:net";
import { startServices } from "./services.mjs";
import { startStandin } from "./server.mjs";

async function closedPort() {
  // Bind port 0, note the number, close it: connecting there is refused.
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}`;
}

export default async function setup(project) {
  const standin = await startStandin();
  project.provide("standinUrl", standin.url);
  project.provide("closedUrl", await closedPort());
  // Search APIs, arXiv, web pages and an echo for the tools (services.mjs).
  const services = await startServices();
  project.provide("servicesUrl", services.url);
  return async () => {
    await services.close();
    await standin.close();
  };
}
