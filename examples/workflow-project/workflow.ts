/**
 * Example workflow project for `steamharness mcp` (see README and docs/workflow-projects.md).
 * Plain objects: a project does not need to import steamharness (`defineWorkflow` only adds types);
 * this one imports it only for the agent entrypoint. It resolves "steamharness" like an installed
 * project: in this repository through node_modules/steamharness, which `npm run build` links here.
 *
 *   npx steamharness structure examples/workflow-project
 *   npx steamharness run examples/workflow-project greet --params '{"name":"Ada"}' --json
 *   npx steamharness mcp "$PWD/examples/workflow-project"
 */

interface Field {
  name: string;
  type: "string" | "number" | "boolean" | "file";
  options?: string[];
  required?: boolean;
  description?: string;
}

interface Context {
  runId: string;
  projectId: string;
  fileCreateDir: string;
  node: { executor: { tools: Array<{ id: string; autoApprove?: boolean }> } } & Record<string, unknown>;
  kv: { get(ns: { projectId: string }, key: string): Promise<{ value: unknown } | null>; set(ns: { projectId: string }, key: string, value: unknown): Promise<void> };
  userInput: { request(request: { message: string; fields: Field[] }): Promise<Record<string, unknown>> };
  log: { info(message: string, data?: Record<string, unknown>): void };
}

const KV_TOOL = "workflow-kv_kv_store";

export default {
  // The tool catalog of every run (WF-2): the KV capability tool, without autoApprove, so the
  // host asks a person before each write (MCP: an approve/deny form).
  executor: { tools: [{ id: KV_TOOL }] },
  entrypoints: {
    greet: {
      title: "Greet",
      description: "Say hello to someone (a trivial entrypoint).",
      params: [{ name: "name", type: "string", required: true, description: "Who to greet" }],
      run(params: { name: string }) {
        return { greeting: `Hello, ${params.name}!` };
      },
    },
    remember_topic: {
      title: "Remember a topic",
      description: "Runs an agent (on the offline scripted model) that stores the topic in the project KV; the KV write needs your approval.",
      params: [{ name: "topic", type: "string", required: true, description: "What to remember" }],
      async run(params: { topic: string }, context: Context) {
        // Loaded here, not at the top, so the other entrypoints start without the agent runtime.
        const [{ createAgentNode, runStreamNode }, { createProjectCapabilityTools }, { createOfflineModel }] = await Promise.all([
          import("steamharness"),
          import("steamharness/capabilities"),
          import("steamharness/testing"),
        ]);
        const node = createAgentNode({
          models: createOfflineModel({
            steps: [
              { text: `Saving "${params.topic}" to the project KV.`, toolCalls: [{ name: KV_TOOL, arguments: { action: "set", key: "topic", value: params.topic } }] },
              { text: `Remembered: ${params.topic}.` },
            ],
          }),
          workdir: context.fileCreateDir,
          createTools: (nodeContext) => createProjectCapabilityTools({ context: nodeContext }),
          maxSteps: 4,
        });
        const { output } = await runStreamNode(node, { prompt: `Remember the topic ${params.topic}` }, context.node as never);
        const answer = output.items.filter((item) => item.metadata.kind === "agent-part" && item.metadata.partType === "text").map((item) => String(item.content)).pop() ?? "";
        const stored = await context.kv.get({ projectId: context.projectId }, "topic");
        return { errCode: output.errCode, errMessage: output.errMessage, output: { answer, stored: stored?.value ?? null, toolCalls: output.toolCallCount } };
      },
    },
    plan_trip: {
      title: "Plan a trip",
      description: "Plan a short trip; asks the person for their travel style and budget before answering.",
      params: [
        { name: "destination", type: "string", required: true, description: "Where to go" },
        { name: "start", type: "string", format: "date", description: "First day (YYYY-MM-DD)" },
        { name: "days", type: "number", default: 3, description: "How many days" },
      ],
      async run(params: { destination: string; start?: string; days: number }, context: Context) {
        // Logs go to stderr; under `steamharness mcp` they never reach the JSON-RPC stdout.
        console.log(`planning ${params.days} days in ${params.destination}`);
        const style = await context.userInput.request({
          message: `How do you like to travel in ${params.destination}?`,
          fields: [
            { name: "pace", type: "string", options: ["relaxed", "packed"], required: true },
            { name: "budget", type: "number", description: "Budget per day" },
          ],
        });
        const trips = ((await context.kv.get({ projectId: context.projectId }, "trips"))?.value as number | undefined) ?? 0;
        await context.kv.set({ projectId: context.projectId }, "trips", trips + 1);
        const perDay = style.pace === "packed" ? 4 : 2;
        return {
          errCode: 0,
          errMessage: "",
          output: {
            destination: params.destination,
            start: params.start ?? null,
            days: params.days,
            pace: style.pace,
            budgetPerDay: style.budget ?? null,
            activities: Array.from({ length: params.days }, (_, day) => `Day ${day + 1}: ${perDay} sights`),
            tripsPlanned: trips + 1,
          },
        };
      },
    },
  },
};
