import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import type { Browser, Page } from "playwright-core";
import { bundleWebChatPage } from "../../src/adapters/driven/system/web-chat-page.js";
import { PLAN_APPROVED_PROMPT } from "../../src/app/agent/plan-step.js";
import type { AgentTool } from "../../src/domain/agent-tool.js";
import type { BrowserPage } from "../../src/ports/browser-page.js";
import type { ModelProvider } from "../../src/ports/model-provider.js";
import { createOfflineModel } from "../../src/testing/offline-model.js";
import { CLI_SOURCE, cleanEnv, REPO } from "../cli/helpers.js";
import { tempDirRemovedAfterAll } from "../fixtures/temp-dirs.js";
import { launchChromium } from "../viewer/browser.js";
import { chatGateway, sleep, TOKEN } from "./helpers.js";

/**
 * The model behind the page, by the user's words: "hello" answers in three slow steps and holds
 * its last one until `release` (so a reload lands mid-stream, deterministically); "deploy" calls
 * a tool needing approval; "long" runs step after step until stopped.
 */
function pageModel() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const offline = createOfflineModel({
    steps: (request) => {
      const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
      const said = JSON.stringify(request.messages[lastUser]?.content);
      const made = request.messages.slice(lastUser).filter((message) => message.role === "assistant").length;
      if (said.includes("deploy")) return made === 0 ? { text: "Deploying now.", toolCalls: [{ name: "deploy", arguments: { target: "prod" } }] } : { text: "Deployment finished." };
      const steps = said.includes("long") ? 1000 : 3;
      return made >= steps ? { text: `done after ${made} steps` } : { text: `step ${made} `, toolCalls: [{ name: "no_such_tool", arguments: { made } }] };
    },
  });
  const model: ModelProvider = {
    descriptor: offline.descriptor,
    async *stream(request, signal) {
      await sleep(60);
      const lastUser = request.messages.map((message) => message.role).lastIndexOf("user");
      const made = request.messages.slice(lastUser).filter((message) => message.role === "assistant").length;
      if (JSON.stringify(request.messages[lastUser]?.content).includes("hello") && made >= 3) await gate;
      yield* offline.stream(request, signal);
    },
  };
  return { model, release };
}

const deploy: AgentTool = {
  name: "deploy", label: "Deploy", description: "Deploys", parameters: Type.Object({ target: Type.String() }),
  execute: async () => ({ content: [{ type: "text", text: "deployed" }] }),
};

let page: BrowserPage;
let browser: Browser;
let closeBrowser: () => Promise<void>;
beforeAll(async () => {
  [page, { browser, close: closeBrowser }] = await Promise.all([bundleWebChatPage(), launchChromium()]);
}, 60_000);
afterAll(async () => closeBrowser?.());

const assistantText = (tab: Page) => tab.getByTestId("message-assistant").last().getByTestId("text").allTextContents().then((texts) => texts.join(""));

describe("UI-6 the browser example: useChat in Chromium, served by the gateway", () => {
  it("UI-6 examples/web-chat streams an answer, resumes it after a reload mid-stream, approves a tool with its button, and stops a turn with its button", async () => {
    const { model, release } = pageModel();
    const { gateway, api } = await chatGateway(model, { page, rateLimit: false, agentOptions: { extraTools: [deploy], extraToolCatalog: [{ id: "deploy" }] } });
    const site = gateway.url.replace(/\/v1$/, "");
    // The page is served without the token; the chat route still wants it.
    expect((await fetch(`${site}/`)).headers.get("content-type")).toContain("text/html");
    expect((await fetch(`${site}/v1/models`)).status).toBe(401);
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(error.message));
    tab.setDefaultTimeout(8000);

    // Send, and watch it stream: the first steps show while the last is held.
    await tab.goto(`${site}/#token=${TOKEN}`);
    await tab.getByLabel("Message").fill("hello");
    await tab.getByRole("button", { name: "Send" }).click();
    await tab.getByText("step 1", { exact: false }).waitFor();
    expect(await assistantText(tab)).not.toContain("done");
    const chatId = new URL(tab.url()).searchParams.get("chat")!;
    expect(chatId).toBeTruthy();

    // Reload mid-stream: useChat (resume: true) reads the chat's active stream from the log.
    await tab.reload();
    await tab.getByText("step 2", { exact: false }).waitFor();
    release();
    await tab.getByText("done after 3 steps").waitFor();
    expect(await assistantText(tab)).toBe("step 0 step 1 step 2 done after 3 steps");
    expect(await tab.getByTestId("message-assistant").count()).toBe(1);
    expect(await tab.getByTestId("message-status").last().textContent()).toBe("completed");

    // Approve a tool with its button: the answer goes back on its own and the turn continues.
    await tab.goto(`${site}/#token=${TOKEN}`);
    await tab.getByLabel("Message").fill("deploy to prod");
    await tab.getByRole("button", { name: "Send" }).click();
    await tab.getByRole("button", { name: "Approve" }).click();
    await tab.getByText("Deployment finished.").waitFor();
    expect(await tab.getByTestId("tool").getAttribute("data-state")).toBe("output-available");
    expect(await tab.getByTestId("message-assistant").count()).toBe(1);

    // Stop a running turn with its button: the server-side stop, so the message ends stopped.
    await tab.goto(`${site}/#token=${TOKEN}`);
    await tab.getByLabel("Message").fill("a long one");
    await tab.getByRole("button", { name: "Send" }).click();
    await tab.getByText("step 2", { exact: false }).waitFor();
    const stopped = new URL(tab.url()).searchParams.get("chat")!;
    await tab.getByRole("button", { name: "Stop" }).click();
    await tab.getByTestId("chat-status").getByText("ready").waitFor();
    // The turn is over on the server (no active stream), and a reload shows nothing resuming.
    let status = 200;
    for (let tries = 0; status === 200 && tries < 50; tries++) {
      const response = await fetch(`${api}/${stopped}/stream`, { headers: { authorization: `Bearer ${TOKEN}` } });
      status = response.status;
      await response.body?.cancel();
      if (status === 200) await sleep(50);
    }
    expect(status).toBe(204);
    const replay = await (await fetch(`${api}/${stopped}/stream?after=0`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(replay).toContain('"reason":"stopped"');
    expect(errors).toEqual([]);
    await tab.close();
  }, 30_000);

  it("UI-6 UI-5 UI-4 the page's Steer button delivers a message into the running answer (its steering-message shows in it), and a plan gets Revise and Build buttons answered through the approval flow", async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (error) => errors.push(error.message));
    tab.setDefaultTimeout(8000);

    // Steer: typed while the answer streams, it joins the running turn at its next step boundary.
    const { model } = pageModel();
    const busy = await chatGateway(model, { page, rateLimit: false });
    const busySite = busy.gateway.url.replace(/\/v1$/, "");
    await tab.goto(`${busySite}/#token=${TOKEN}`);
    await tab.getByLabel("Message").fill("a long one");
    await tab.getByRole("button", { name: "Send" }).click();
    await tab.getByText("step 1", { exact: false }).waitFor();
    await tab.getByLabel("Message").fill("also look at the tests");
    await tab.getByRole("button", { name: "Steer" }).click();
    await tab.getByTestId("steer").getByText("also look at the tests", { exact: false }).waitFor();
    // The model counts its steps from the last user message, the steered one: three more, then the turn ends.
    await tab.getByText("done after 3 steps").waitFor();
    await tab.getByTestId("chat-status").getByText("ready").waitFor();
    expect(await tab.getByTestId("message-assistant").count()).toBe(1);
    expect(await tab.getByTestId("message-user").count()).toBe(1);

    // A plan: Revise sends the feedback as the denial's reason, the revised plan asks again, Build builds it.
    const planned: string[] = [];
    const planner = await chatGateway(
      (request) => {
        const last = request.messages.filter((message) => message.role === "user").at(-1)!;
        const said = typeof last.content === "string" ? last.content : last.content.map((block) => block.text).join("");
        planned.push(said);
        if (said === PLAN_APPROVED_PROMPT) return { text: "Built it." };
        return { text: said.startsWith("The plan was declined") ? "1. Smaller step" : "1. Read\n2. Write" };
      },
      { page, rateLimit: false, agentOptions: { mode: "plan" } },
    );
    await tab.goto(`${planner.gateway.url.replace(/\/v1$/, "")}/#token=${TOKEN}`);
    await tab.getByLabel("Message").fill("Plan the change");
    await tab.getByRole("button", { name: "Send" }).click();
    await tab.getByTestId("plan").getByText("2. Write").waitFor();
    await tab.getByLabel("Plan feedback").fill("too big");
    await tab.getByRole("button", { name: "Revise" }).click();
    await tab.getByTestId("plan").getByText("1. Smaller step").waitFor();
    await tab.getByRole("button", { name: "Build" }).click();
    await tab.getByText("Built it.").waitFor();
    expect(planned).toEqual(["Plan the change", "The plan was declined. Revise it. Feedback: too big", PLAN_APPROVED_PROMPT]);
    expect(await tab.getByTestId("plan").evaluateAll((plans) => plans.map((plan) => plan.getAttribute("data-state")))).toEqual(["output-denied", "output-available"]);
    expect(await tab.getByTestId("message-assistant").count()).toBe(1);
    expect(errors).toEqual([]);
    await tab.close();
  }, 30_000);

  it("UI-6 `steamharness gateway <project> --ui` serves the page at / and its bundle at /web-chat.js without the token; the API still wants it", async () => {
    const dir = tempDirRemovedAfterAll("web-chat-cli-");
    const child = spawn(process.execPath, [...CLI_SOURCE, "gateway", join(REPO, "examples/assistant"), "--port", "0", "--ui", "--data-dir", join(dir, "data"), "--agent-store-dir", join(dir, "agents")], { cwd: REPO, env: cleanEnv({ STEAMHARNESS_GATEWAY_TOKEN: TOKEN }), stdio: ["ignore", "ignore", "pipe"] });
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      const site = await new Promise<string>((resolve, reject) => {
        let stderr = "";
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /chat page: (http:\/\/127\.0\.0\.1:\d+)\/#token=<token>/.exec(stderr);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`gateway exited (${code}): ${stderr}`)));
      });
      const html = await fetch(`${site}/`);
      expect(html.status).toBe(200);
      expect(await html.text()).toContain('<script type="module" src="/web-chat.js">');
      const script = await fetch(`${site}/web-chat.js`);
      expect(script.headers.get("content-type")).toContain("text/javascript");
      expect(await script.text()).toContain("/v1/ui/chat");
      expect((await fetch(`${site}/v1/ui/chat/c1/stream`)).status).toBe(401);
      // Host checks still apply to the page (DNS rebinding).
      expect((await fetch(`${site}/`, { headers: { origin: "http://evil.example" } })).status).toBe(403);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);
});
