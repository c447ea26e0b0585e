import { InvalidArgumentError } from "commander";

// DX-8: flag values checked while commander parses, so `--timeout abc` or `-5` is a usage error
// (exit code 2, one line) before anything starts, never a silent "no timeout".

/**
 * A commander argument parser for a whole number from `min` to `max`; anything else is an
 * `InvalidArgumentError` (commander prints it and the CLI exits with code 2).
 *
 * @example
 * new Option("--timeout <ms>", "…").argParser(wholeNumber(1, 2_147_483_647, "milliseconds"))
 */
export function wholeNumber(min: number, max: number, unit = ""): (value: string) => number {
  return (value: string) => {
    const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`expected a whole number${unit ? ` of ${unit}` : ""} from ${min} to ${max}.`);
    }
    return number;
  };
}

/** The largest timeout Node's timers accept (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** The parser of `--timeout <ms>` on `run` and `mcp`: 1 ms to {@link MAX_TIMEOUT_MS}. */
export const timeoutMs = wholeNumber(1, MAX_TIMEOUT_MS, "milliseconds");
