// The resolve hook of node20-fs-glob.mjs: "fs" / "node:fs" imported from inside
// @modelcontextprotocol/conformance resolves to the shim with globSync.
const SHIM = new URL("./fs-with-glob.mjs", import.meta.url).href;
const PACKAGE = "/node_modules/@modelcontextprotocol/conformance/";

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes(PACKAGE)) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
