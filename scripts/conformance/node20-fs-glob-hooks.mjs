// The resolve hook of node20-fs-glob.mjs: "fs" / "node:fs" imported from inside
// @modelcontextprotocol/conformance resolves to the shim with globSync.
const SHIM = new URL("./fs-with-glob.mjs", import.meta.url).href;
// Both suites: 0.1.16 and 0.2.0-alpha (installed under the alias conformance-2026).
const PACKAGES = ["/node_modules/@modelcontextprotocol/conformance/", "/node_modules/conformance-2026/"];

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && PACKAGES.some((name) => context.parentURL?.includes(name))) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
