/** The source of fresh ids for the domain, so tests can make them predictable. */
export interface IdSource {
  /** A new id, unique across processes, optionally starting with `prefix`. */
  next(prefix?: string): string;
}
