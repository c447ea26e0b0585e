import { describe, expect, it } from "@jest/globals";
import { createMemoryProjectConfigurationStore } from "../../src/adapters/driven/sqlite/memory/memory-stores.js";
import { runProjectConfigurationStoreContract } from "../../src/testing/project-configuration-store.contract.js";

describe("CFG-1 memory project configuration store", () => {
  runProjectConfigurationStoreContract({ describe, it, expect }, () => ({ store: createMemoryProjectConfigurationStore() }));
});
