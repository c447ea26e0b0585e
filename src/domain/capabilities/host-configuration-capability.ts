/**
 * `workflow-host_project_configurations` (CAP-8): the host's project configurations through the
 * loopback host bridge (see `host-bridge.ts` for availability and the wire protocol).
 * `get_configurations` reads; `manage_configurations` writes with an explicit storage location,
 * project, configuration id and expected revision (a stale revision is the bridge's `conflict`).
 * Without a usable bridge every call fails with `unavailable` and the reason, before any request.
 */
import { Type } from "@sinclair/typebox";
import { SteamharnessError } from "../errors.js";
import { isJsonValue, type JsonValue } from "../json.js";
import { CAPABILITY_ADDRESSES, CAPABILITY_TOOL_IDS } from "./catalog.js";
import type { CapabilitySpec } from "./capability-spec.js";
import { HOST_BRIDGE_PATHS } from "./host-bridge.js";
import { JsonObjectField, StringEnum, capabilityParameters } from "./schema.js";
import { CAPABILITY_LIMITS as L } from "./text-limits.js";
import { createArgumentValidator, invalid } from "./validate-args.js";

const Identifier = (description: string) => Type.String({ minLength: 1, maxLength: L.identifier, description });

const parameters = capabilityParameters({
  action: StringEnum(["get_configurations", "manage_configurations"] as const, { description: "What to do" }),
  storageLocation: StringEnum(["local", "server"] as const, { description: "Where the configurations are stored" }),
  projectId: Identifier("The project whose configurations to read or change"),
  configurationId: Identifier("The configuration id (from get_configurations)"),
  revision: Type.Integer({ minimum: 0, description: "The revision you read; a stale revision is refused (manage_configurations)" }),
  operation: StringEnum(["create", "update", "delete", "select"] as const, { description: "select makes it current (manage_configurations)" }),
  name: Type.String({ minLength: 1, maxLength: L.identifier, description: "Configuration name (create, update)" }),
  values: JsonObjectField("Configuration field values (create, update)"),
});

interface HostConfigurationArgs {
  action: "get_configurations" | "manage_configurations";
  storageLocation?: "local" | "server";
  projectId?: string;
  configurationId?: string;
  revision?: number;
  operation?: "create" | "update" | "delete" | "select";
  name?: string;
  values?: Record<string, unknown>;
}

const validate = createArgumentValidator<HostConfigurationArgs>(parameters, {
  get_configurations: { required: [], optional: ["storageLocation", "projectId", "configurationId"] },
  manage_configurations: { required: ["operation", "storageLocation", "projectId", "configurationId", "revision"], optional: ["name", "values"] },
});

/** The host-configuration capability. */
export const hostConfigurationCapability: CapabilitySpec<HostConfigurationArgs> = {
  address: CAPABILITY_ADDRESSES.find((a) => a.toolId === CAPABILITY_TOOL_IDS.hostConfiguration)!,
  label: "Project configurations",
  description:
    "Read and manage the host's project configurations. get_configurations (optional storageLocation, projectId, configurationId) " +
    "lists configurations with their ids and revisions. manage_configurations changes one: operation (create, update, delete, select), " +
    "storageLocation, projectId, configurationId and the revision you read are all required; name and values for create and update.",
  parameters,
  replay: "never",
  validate,
  async execute(args, runtime, signal) {
    const bridge = runtime.hostBridge;
    if (!bridge) {
      throw new SteamharnessError("unavailable", `host configuration is unavailable: ${runtime.hostBridgeUnavailableReason ?? "no host bridge"}`);
    }
    const { action, ...body } = args;
    if (action === "manage_configurations") {
      const writes = args.operation === "create" || args.operation === "update";
      if (!writes && args.values !== undefined) throw invalid("values", `values apply only to create and update`);
      if (!writes && args.name !== undefined) throw invalid("name", `name applies only to create and update`);
      if (args.operation === "create" && args.values === undefined) throw invalid("values", "values are required to create a configuration");
      if (args.values !== undefined && !isJsonValue(args.values)) throw invalid("values", "values must be JSON");
    }
    const path = action === "get_configurations" ? HOST_BRIDGE_PATHS.get : HOST_BRIDGE_PATHS.manage;
    const result = await bridge.post(path, body as { [key: string]: JsonValue }, signal);
    return { result };
  },
};
