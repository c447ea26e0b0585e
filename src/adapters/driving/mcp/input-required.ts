/**
 * MCP-19: durable input round trips on the 2026-07-28 revision (multi-round-trip requests,
 * SEP-2322). The revision has no server-to-client requests: a `tools/call` whose run waits for a
 * person (a form, an approval), for the client's model (sampling) or its roots answers the revision's
 * input-required result, and the client calls again with `inputResponses` and the echoed
 * `requestState`. Each round runs the same durable run again on its run id (paused-runs.ts keeps
 * it with the answers it used, in the project's data dir), so whichever host receives the retry
 * continues it and nothing the run committed is done twice.
 *
 * `requestState` names the run and the questions; it is HMAC-signed by the SDK's codec with a key
 * every host of one deployment shares (a key file created once in the data dir, or
 * `STEAMHARNESS_MCP_STATE_KEY`), bound to the method and the caller's tenant, so a tampered
 * state, an expired one and another tenant's are all refused with the same `-32602`.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createRequestStateCodec, inputRequired, MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, type ClientCapabilities, type InputRequest, type InputRequiredResult, type RequestStateCodec, type ServerContext } from "@modelcontextprotocol/server";
import type { DecisionAnswerer } from "../../../domain/agent/decision-answerer.js";
import { SteamharnessError } from "../../../domain/errors.js";
import type { JsonValue } from "../../../domain/json.js";
import { checkAnswers } from "../../../domain/workflow/answer-validation.js";
import { APPROVAL_FIELD, approvalForm, pickAnsweredValues, planInputElicitation, summarizeFields } from "../../../domain/workflow/interaction.js";
import { answeringHandlers, type PausedRun, type PausedRunAnswer } from "../../../domain/workflow/paused-run.js";
import { interactionRequired, type PendingInteraction, type WorkflowRunReport } from "../../../domain/workflow/run-report.js";
import type { ProjectFiles } from "../../../ports/project-files.js";
import type { ProjectRunner } from "../../../ports/project-runner.js";
import type { RunHandlers } from "../../../ports/workflow-workers.js";
import type { UserInputField } from "../../../ports/user-input.js";
import type { WorkflowPromptDeclaration } from "../../../domain/workflow/publications.js";
import { dataTenantOf, tenantOfAuth } from "./transport/http-tenant.js";

/** The key file (in the host's `--data-dir`) that signs every host's `requestState`. */
export const REQUEST_STATE_KEY_FILE = "mcp-request-state.key";

/** How long a minted `requestState` is honoured: a week, since a run may wait that long for a person. */
const STATE_TTL_SECONDS = 7 * 24 * 3600;

/**
 * How long a run's first unanswered question waits for its siblings before the run pauses: a
 * workflow that asks several things at once (`Promise.all`) gets them in one input-required
 * result. One missed is asked in the next round, so the wait is a convenience, not a rule.
 */
export const GATHER_MS = 40;

/** What `requestState` carries: the run and the questions it was minted for. */
export interface RoundState {
  run: string;
  tool: string;
  asks: string[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The deployment's `requestState` key: `given` (the entry's `STEAMHARNESS_MCP_STATE_KEY`) when
 * set, else the key file in `dataDir`, created once with a random key; every host on that data
 * dir reads the one that was created first.
 *
 * @example
 * const key = await loadRequestStateKey(runner.ports.files, host.dirs.dataDir, options.requestStateKey);
 */
export async function loadRequestStateKey(files: Pick<ProjectFiles, "createTextOnce">, dataDir: string, given?: string): Promise<string> {
  if (given !== undefined && given !== "") {
    if (Buffer.byteLength(given) < 32) throw new SteamharnessError("input_validation", "STEAMHARNESS_MCP_STATE_KEY must be at least 32 bytes", { field: "STEAMHARNESS_MCP_STATE_KEY" });
    return given;
  }
  const key = (await files.createTextOnce(join(dataDir, REQUEST_STATE_KEY_FILE), randomBytes(32).toString("base64url"))).trim();
  if (Buffer.byteLength(key) < 32) throw new SteamharnessError("input_validation", `the requestState key file ${REQUEST_STATE_KEY_FILE} in the data dir holds fewer than 32 bytes`, { field: REQUEST_STATE_KEY_FILE });
  return key;
}

/**
 * The signing codec of `requestState` (the SDK's HMAC-SHA256 codec), bound to the request's
 * method and the caller's tenant: its `verify` is the server's `requestState.verify` hook.
 *
 * @example
 * const codec = createRoundStateCodec(await loadRequestStateKey(dataDir));
 * new Server(info, { capabilities, requestState: { verify: codec.verify } });
 */
export function createRoundStateCodec(key: string): RequestStateCodec<RoundState> {
  return createRequestStateCodec<RoundState>({ key, ttlSeconds: STATE_TTL_SECONDS, bind: (ctx) => `${ctx.mcpReq.method}\0${tenantOfAuth(ctx.http?.authInfo) ?? ""}` });
}

/** The refusal of a state that names no run of this caller: the SDK's own words for a bad state, so nothing tells a missing run from a foreign one. */
function refusedState(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, "Invalid or expired requestState", { reason: "invalid_request_state" });
}

/**
 * The paused run a retried call continues: the one its verified `requestState` names, of this
 * caller's tenant and of this tool; `undefined` for a first call. Any other state is refused
 * like a tampered one (`-32602`).
 *
 * @example
 * const paused = await roundRun(runner, "ask", ctx.mcpReq.requestState<RoundState>(), tenant);
 */
export async function roundRun(runner: ProjectRunner, toolName: string, state: RoundState | undefined, tenant: string | undefined): Promise<PausedRun | undefined> {
  if (state === undefined) return undefined;
  if (!isObject(state) || typeof state.run !== "string") throw refusedState();
  const run = await runner.findPausedRun(state.run, dataTenantOf(tenant));
  if (!run || run.tenant !== tenant || run.entrypointId !== toolName || state.tool !== toolName) throw refusedState();
  return run;
}

/**
 * MCP-19 × MCP-20: the form answers a retry brings for the questions its verified state names,
 * added to `paused`'s (an accepted form's content, checked against the form when the run asks
 * it again; a declined or missing one is simply asked again by the run).
 *
 * @example
 * const answers = roundAnswers(continued, ctx.mcpReq.inputResponses, ctx.mcpReq.requestState<RoundState>(), answeredBy);
 */
export function roundAnswers(paused: PausedRun, responses: Record<string, unknown> | undefined, state: RoundState | undefined, answeredBy: DecisionAnswerer): PausedRun["answers"] {
  const answers = { ...paused.answers };
  for (const key of state?.asks ?? []) {
    const given = responses?.[key];
    if (isObject(given) && given.action === "accept" && isObject(given.content)) answers[key] = { kind: "input", values: given.content as Record<string, JsonValue>, answeredBy };
  }
  return answers;
}

/** Which client capability an input request needs. */
type Needed = "elicitation" | "sampling" | "roots";

/** One round of a run on the revision: its handlers, and what it asked when it paused. */
export interface InputRound {
  /** The run's input, approval and sampling handlers for this round. */
  handlers: Required<Pick<RunHandlers, "onInput" | "onApproval" | "onSampling" | "onRoots">>;
  /** The answers the run used: the paused run's and this round's (kept with the run when it pauses again). */
  answers: Record<string, PausedRunAnswer>;
  /** The input requests of the questions left open, by key (the run's request id). */
  asked: Map<string, InputRequest>;
  /** The capabilities a question needed that the client did not declare, or `undefined`. */
  missing(): ClientCapabilities | undefined;
}

/** Options of {@link createInputRound}. */
export interface InputRoundOptions {
  /** The retried request's `inputResponses` (`ctx.mcpReq.inputResponses`, untrusted). */
  responses: Record<string, unknown> | undefined;
  /** The paused run this round continues (its answers are used first). */
  paused: PausedRun | undefined;
  /** The client capabilities this request declared (its `_meta` envelope). */
  capabilities: ClientCapabilities | undefined;
  /** Who answers (UI-7): the request's principal. */
  answeredBy: () => DecisionAnswerer;
}

/**
 * The handlers of one round: a question answered before (the paused run's answers) or by this
 * request's `inputResponses` (keyed by the run's request id) is answered; any other one is
 * noted, and the run pauses (`interaction_required`) once its siblings had a moment to arrive.
 * An answer that does not fit is asked again; a declined or cancelled form ends the run.
 *
 * @example
 * const round = createInputRound({ responses: ctx.mcpReq.inputResponses, paused, capabilities, answeredBy });
 * const report = await runner.run(entrypoint, prepared, round.handlers, { runId: paused?.runId });
 */
export function createInputRound(options: InputRoundOptions): InputRound {
  const answers: Record<string, PausedRunAnswer> = { ...options.paused?.answers };
  const asked = new Map<string, InputRequest>();
  const missing: ClientCapabilities = {};
  let pause: Promise<never> | undefined;
  const ask = (key: string, request: InputRequest, needed: Needed, pending: PendingInteraction): Promise<never> => {
    asked.set(key, request);
    if (options.capabilities?.[needed] === undefined) (missing as Record<string, object>)[needed] = {};
    const error = interactionRequired(pending, "the run waits for input from the 2026-07-28 client (input_required)");
    pause ??= new Promise((resolve) => setTimeout(resolve, GATHER_MS)).then(() => Promise.reject(error));
    return pause;
  };
  const response = (key: string) => options.responses?.[key];
  const accepted = (key: string, what: string): Record<string, unknown> | undefined => {
    const given = response(key);
    if (!isObject(given) || typeof given.action !== "string") return undefined;
    if (given.action === "decline" || given.action === "cancel") throw new SteamharnessError("cancelled", `the user ${given.action === "decline" ? "declined" : "cancelled"} ${what}; the run was ended`);
    return given.action === "accept" && isObject(given.content) ? given.content : undefined;
  };
  const round: Required<Pick<RunHandlers, "onInput" | "onApproval">> = {
    async onInput(request) {
      const fields = request.fields ?? [];
      const content = accepted(request.requestId, "the request for input");
      if (content !== undefined) {
        const values = pickAnsweredValues(fields, content);
        if (checkAnswers(fields, values).length === 0) {
          answers[request.requestId] = { kind: "input", values, answeredBy: options.answeredBy() };
          return { outcome: "answered", values, answeredBy: options.answeredBy() };
        }
      }
      const plan = planInputElicitation(fields);
      const pending: PendingInteraction = { kind: "input", requestId: request.requestId, message: request.message, fields: summarizeFields(fields) };
      if (!plan.elicitable) throw interactionRequired(pending, `the run is waiting for input that an MCP form cannot carry: ${plan.reason}`);
      return ask(request.requestId, inputRequired.elicit({ mode: "form", message: request.message, requestedSchema: plan.requestedSchema as never }), "elicitation", pending);
    },
    async onApproval(request) {
      const form = approvalForm(request.toolId, request.arguments);
      const decision = accepted(request.requestId, `the approval of tool ${request.toolId}`)?.[APPROVAL_FIELD];
      if (decision === "approve" || decision === "deny") {
        const answer = decision === "approve" ? { outcome: "approved" as const, answeredBy: options.answeredBy() } : { outcome: "denied" as const, reason: "denied by the user", answeredBy: options.answeredBy() };
        answers[request.requestId] = { kind: "approval", decision: answer };
        return answer;
      }
      const pending: PendingInteraction = { kind: "approval", requestId: request.requestId, message: form.message, fields: [`${APPROVAL_FIELD} (string, options: approve|deny, required)`] };
      return ask(request.requestId, inputRequired.elicit({ mode: "form", message: form.message, requestedSchema: form.requestedSchema as never }), "elicitation", pending);
    },
  };
  // The worker numbers a run's requests to the client in the order it sends them (`sampling-1`,
  // `roots-1`, …), and a run asked again sends them in the same order: the key is that number.
  const counts = { sampling: 0, roots: 0 };
  const fromClient = async <T>(needed: "sampling" | "roots", check: (value: unknown) => T, request: () => InputRequest): Promise<T> => {
    counts[needed] += 1;
    const key = `${needed}-${counts[needed]}`;
    const kept = answers[key];
    if (kept?.kind === "client") return check(kept.result);
    const given = response(key);
    if (given !== undefined) {
      try {
        const result = check(given);
        answers[key] = { kind: "client", result: given as JsonValue };
        return result;
      } catch {
        // A malformed answer is asked for again, as a misfit form is.
      }
    }
    const pending: PendingInteraction = { kind: "input", requestId: key, message: needed === "sampling" ? "the client's model (sampling/createMessage)" : "the client's roots (roots/list)", fields: [] };
    return ask(key, request(), needed, pending);
  };
  const sampling = () => import("../../../domain/workflow/sampling.js");
  const onSampling: InputRound["handlers"]["onSampling"] = async (request) => {
    const { checkSamplingRequest, checkSamplingResult } = await sampling();
    return fromClient("sampling", checkSamplingResult, () => inputRequired.createMessage(checkSamplingRequest(request) as never));
  };
  const onRoots: InputRound["handlers"]["onRoots"] = async () => fromClient("roots", (await sampling()).checkRootsResult, () => inputRequired.listRoots());
  return {
    handlers: { ...answeringHandlers({ answers }, round), onSampling, onRoots },
    answers,
    asked,
    missing: () => (Object.keys(missing).length > 0 ? missing : undefined),
  };
}

/**
 * The client capabilities a request of the revision declared in its `_meta` envelope.
 *
 * @example
 * const capabilities = envelopeCapabilities(ctx);
 */
export function envelopeCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  const declared = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/clientCapabilities"];
  return isObject(declared) ? (declared as ClientCapabilities) : undefined;
}

/** What {@link roundResult} keeps a paused run with. */
export interface RoundStart {
  entrypointId: string;
  args: JsonValue;
  tenant?: string;
}

/**
 * The end of a round: the revision's input-required result (the run kept with its answers by
 * its run id, a signed state naming it and its questions) when the run paused on questions
 * this round asked; `undefined` when it ended otherwise (a continued run is then forgotten).
 * A question the client cannot answer (no elicitation, sampling or roots capability declared)
 * is the revision's `-32021` error, and the run is not kept.
 *
 * @example
 * const paused = await roundResult(runner, round, report, { entrypointId, args, tenant }, codec, ctx, previous);
 */
export async function roundResult(runner: ProjectRunner, round: InputRound, report: WorkflowRunReport, start: RoundStart, codec: RequestStateCodec<RoundState>, ctx: ServerContext, continued: PausedRun | undefined): Promise<InputRequiredResult | undefined> {
  const dataTenant = dataTenantOf(start.tenant);
  const keep = { ...start, answers: round.answers, ...(dataTenant !== undefined ? { dataTenant } : {}) };
  if (report.status !== "waiting_for_input" || round.asked.size === 0) {
    if (continued) await runner.keepPausedRun(report, keep);
    return undefined;
  }
  const missing = round.missing();
  if (missing) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: missing }, `the run asks for ${Object.keys(missing).join(", ")}, which this client did not declare in its request's clientCapabilities`);
  await runner.keepPausedRun(report, keep);
  const requestState = await codec.mint({ run: report.runId, tool: start.entrypointId, asks: [...round.asked.keys()] }, ctx);
  return inputRequired({ inputRequests: Object.fromEntries(round.asked), requestState });
}

/** MCP-19: the key of a prompt's form among the input requests of its `prompts/get`. */
export const PROMPT_ASK_KEY = "ask";

/**
 * MCP-19: the values a prompt that declares `ask` gets from the person, or the input-required
 * result that asks for them. On 2026-07-28 the form is the revision's input request (keyed
 * {@link PROMPT_ASK_KEY}) and the retry's `inputResponses` bring the answer: nothing runs and
 * nothing is kept between the rounds (the prompt is a function of its arguments and answers),
 * so the result carries no `requestState`. An answer that does not fit is asked again; a declined
 * or cancelled one is `-32602`; a client that declared no elicitation gets `-32021`. A 2025-11-25
 * session is sent `elicitation/create` on the request (`-32602` when it declared no elicitation).
 *
 * @example
 * const asked = prompt.ask ? await promptAnswers(prompt.ask, ctx, canAskClient(server) && server.getClientCapabilities()?.elicitation !== undefined) : {};
 * if (isInputRequiredResult(asked)) return asked;
 */
export async function promptAnswers(ask: NonNullable<WorkflowPromptDeclaration["ask"]>, ctx: ServerContext, sessionCanElicit: boolean): Promise<Record<string, string> | InputRequiredResult> {
  const fields: UserInputField[] = ask.fields.map(({ name, description, required, options }) => ({ name, type: "string", ...(description !== undefined ? { description } : {}), ...(required !== undefined ? { required } : {}), ...(options ? { options: [...options] } : {}) }));
  // Text fields with optional static options: always a form an MCP client can show.
  const plan = planInputElicitation(fields);
  const form = { mode: "form" as const, message: ask.message, requestedSchema: (plan.elicitable ? plan.requestedSchema : {}) as never };
  const modern = ctx.mcpReq.envelope !== undefined;
  if (modern && envelopeCapabilities(ctx)?.elicitation === undefined) {
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { elicitation: {} } }, "the prompt asks the person, and this client did not declare elicitation in its request's clientCapabilities");
  }
  if (!modern && !sessionCanElicit) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "the prompt asks the person, and this client declares no elicitation");
  const given = modern ? ctx.mcpReq.inputResponses?.[PROMPT_ASK_KEY] : await ctx.mcpReq.elicitInput(form);
  if (isObject(given) && (given.action === "decline" || given.action === "cancel")) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `the person ${given.action === "decline" ? "declined" : "cancelled"} the prompt's question`);
  }
  const values = isObject(given) && given.action === "accept" && isObject(given.content) ? pickAnsweredValues(fields, given.content) : undefined;
  if (values && checkAnswers(fields, values).length === 0) return Object.fromEntries(fields.map((field) => [field.name, typeof values[field.name] === "string" ? (values[field.name] as string) : ""]));
  if (!modern) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "the answer to the prompt's question does not fit its form");
  return inputRequired({ inputRequests: { [PROMPT_ASK_KEY]: inputRequired.elicit(form) } });
}
