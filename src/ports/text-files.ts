/**
 * The files and folders a command names (`--admin-key-file`, `config import <file>`, `init <dir>`,
 * `view <project-dir>`, a conversation project's `package.json`): read and written whole, as
 * UTF-8 text. The surfaces and the app take it from the composition root, so they touch no file
 * system themselves (ARCH-9).
 */
export interface TextFiles {
  /** The whole file as UTF-8 text. Rejects with the system error (its `code`: `ENOENT`, `EACCES`, `EISDIR`, …) when it cannot be read; the caller words the message. */
  read(path: string): Promise<string>;
  /** Replaces the file with `text` (created when missing). Rejects with the system error when it cannot be written (a missing folder is `ENOENT`; no folder is created). */
  write(path: string, text: string): Promise<void>;
  /** What is at `path`, following links: a `file`, a `folder`, `other` (a FIFO, a device, a socket), or `null` when nothing is there or it cannot be looked at. Never rejects. */
  kind(path: string): Promise<"file" | "folder" | "other" | null>;
  /** The names of the entries directly inside a folder, unordered. Rejects with the system error (`ENOENT`, `ENOTDIR`, …). */
  list(folder: string): Promise<string[]>;
  /** Creates a folder and its parents; nothing when it exists. Rejects with the system error (`EEXIST` when a file is in the way). */
  makeFolder(folder: string): Promise<void>;
}
