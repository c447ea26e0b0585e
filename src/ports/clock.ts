/** The source of time for the domain, so tests can fix it. */
export interface Clock {
  /** Milliseconds since the epoch. Never decreases within one process. */
  now(): number;
}
