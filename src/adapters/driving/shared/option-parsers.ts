import { InvalidArgumentError } from "commander";
import { SteamharnessError } from "../../../domain/errors.js";

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

/**
 * ARCH-12: a host's period in milliseconds read from the environment variable `name` (a whole
 * number from 10 to {@link MAX_TIMEOUT_MS}), else `fallback` when it is unset or empty. Periods a
 * person never tunes (how often a host sweeps approvals, how often a call heartbeats) keep their
 * defaults; a test that waits on one shortens it for the process it starts. A bad value is an
 * `input_validation` error naming the variable (the CLI exits 2).
 *
 * @example
 * const intervalMs = periodMsFromEnv("STEAMHARNESS_APPROVAL_SWEEP_MS", DEFAULT_APPROVAL_SWEEP_MS);
 */
export function periodMsFromEnv<F extends number | undefined>(name: string, fallback: F, env: Readonly<Record<string, string | undefined>> = process.env): number | F {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  try {
    return wholeNumber(10, MAX_TIMEOUT_MS, "milliseconds")(value);
  } catch (error) {
    throw new SteamharnessError("input_validation", `[steamharness] ${name}: ${(error as Error).message}`, { field: name });
  }
}
