/**
 * The files a command names by a flag (`--admin-key-file`, `--auth-token-file`, `config import
 * <file>`, `config export -o <file>`): read and written whole, as UTF-8 text. The surfaces take
 * it from the composition root, so they touch no file system themselves (ARCH-9).
 */
export interface TextFiles {
  /** The whole file as UTF-8 text. Rejects with the system error (its `code`: `ENOENT`, `EACCES`, `EISDIR`, …) when it cannot be read; the caller words the message. */
  read(path: string): Promise<string>;
  /** Replaces the file with `text` (created when missing). Rejects with the system error when it cannot be written (a missing folder is `ENOENT`; no folder is created). */
  write(path: string, text: string): Promise<void>;
}
