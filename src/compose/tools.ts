/** The composition root's built-in coding tools (read, write, edit, bash, grep, find, ls; AG-6). */
export { createCodingTools } from "../adapters/coding-tools/index.js";
