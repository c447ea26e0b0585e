/**
 * CFG-5: a related project is bound only when the relation is confirmed on both sides ("双方已确认").
 * (ours) Each side confirms in its own `package.json`: `relatedProjects` lists the ids of the
 * projects it accepts as related. Project A may bind B with `--related-project alias=<B's dir>`
 * only when A lists B's id and B lists A's id; a one-sided or missing confirmation is refused
 * before any worker starts, so a project never reaches another project's data unless the other
 * project agreed to it.
 */
import { SteamharnessError } from "../errors.js";
import type { WorkflowManifest } from "./project-manifest.js";

/** Which side has not confirmed a relation. */
export type UnconfirmedSide = "this" | "related" | "both";

const confirms = (manifest: WorkflowManifest, otherId: string) => (manifest.relatedProjects ?? []).some((id) => id.toLowerCase() === otherId.toLowerCase());

/**
 * Throws `relation_unconfirmed` (field `--related-project`, data `{ alias, projectId,
 * relatedProjectId, unconfirmed }`) unless `self` and `related` list each other's id in
 * `relatedProjects`. The message says which `package.json` needs which id.
 *
 * @example
 * requireConfirmedRelation("billing", { ...self, relatedProjects: [billing.id] }, { ...billing, relatedProjects: [self.id] }); // passes
 */
export function requireConfirmedRelation(alias: string, self: WorkflowManifest, related: WorkflowManifest, relatedDirectory = "the related project"): void {
  const thisSide = confirms(self, related.id);
  const otherSide = confirms(related, self.id);
  if (thisSide && otherSide) return;
  const unconfirmed: UnconfirmedSide = !thisSide && !otherSide ? "both" : thisSide ? "related" : "this";
  const missing = [
    ...(thisSide ? [] : [`this project's package.json "relatedProjects" must list ${related.id}`]),
    ...(otherSide ? [] : [`the package.json of ${relatedDirectory} "relatedProjects" must list ${self.id}`]),
  ];
  throw new SteamharnessError(
    "relation_unconfirmed",
    `[steamharness] [workflow] --related-project ${alias}: the relation is not confirmed on both sides (${missing.join("; ")})`,
    { field: "--related-project", data: { alias, projectId: self.id, relatedProjectId: related.id, unconfirmed } },
  );
}
