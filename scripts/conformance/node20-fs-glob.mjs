// `node --import ./scripts/conformance/node20-fs-glob.mjs node_modules/@modelcontextprotocol/conformance/dist/index.js …`
// The conformance CLI (0.1.16) imports `globSync` from "fs", which Node 20 lacks (Node 22 has
// it), so on Node 20 its module does not even link. This registers a resolve hook that answers
// "fs" with fs-with-glob.mjs for that one package; on a Node with fs.globSync it registers
// nothing. No global is patched: other modules still get node:fs itself.
import * as fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") register("./node20-fs-glob-hooks.mjs", import.meta.url);
