import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * The default key store directory under a data dir (`<data-dir>/gateway`): where `gateway --keys`,
 * `gateway keys …` and `mcp --http --keys` look for API keys when `--store` is not given, so the
 * surfaces that share a key store agree on it.
 *
 * @example
 * defaultKeyStoreDirectory("/srv/data"); // "/srv/data/gateway"
 */
export const defaultKeyStoreDirectory = (dataDir: string | undefined): string => join(resolve(dataDir ?? join(homedir(), ".steamharness")), "gateway");
