// Stands in for `ajv` and `ajv-formats` (whose default export is never reached) in the worker bundle (wrangler.toml [alias]). The MCP SDK
// imports Ajv as its default JSON Schema validator, but Ajv compiles schemas with `new Function`,
// which Workers refuse: edgeflow always passes the SDK a CfWorkerJsonSchemaValidator instead, so
// Ajv is never used, and bundling it would cost ~40 KiB gzip. Constructing it says why it is absent.
export default class Ajv {
  constructor() {
    throw new Error("Ajv is not bundled (Workers refuse its code generation): give the MCP SDK a CfWorkerJsonSchemaValidator");
  }
}
