/** What decides where a run's session history lives (SES-1, SES-6). */
export interface SessionStorageInput {
  /** The node's explicit session file (`databasePath`); wins over everything else. */
  databasePath?: string;
  /** Whether the storage's session backend is durable (`storage.sessions.durable`). */
  durableBackend: boolean;
  conversationId?: string;
  /** A gateway run carrying host input: its input never enters conversation history. */
  hostInput?: boolean;
}

/**
 * Where a run's session lives: `"durable"` (the explicit `databasePath`, else the storage's
 * durable session backend for conversation runs) or `"memory"` (SES-6: non-conversation nodes,
 * gateway runs with `hostInput`, and storages without a durable backend, unless `databasePath`).
 *
 * @example
 * chooseSessionStorage({ durableBackend: true, conversationId: "c1" }) // "durable"
 * chooseSessionStorage({ durableBackend: true, conversationId: "c1", hostInput: true }) // "memory"
 */
export function chooseSessionStorage(input: SessionStorageInput): "durable" | "memory" {
  if (input.databasePath !== undefined && input.databasePath !== "") return "durable";
  if (input.hostInput === true) return "memory";
  if (input.conversationId === undefined || input.conversationId === "") return "memory";
  return input.durableBackend ? "durable" : "memory";
}
