import { CAPABILITY_TOOL_IDS as IDS } from "../../src/domain/capabilities/catalog.js";
import { detectCredential } from "../../src/domain/capabilities/credential-detection.js";
import { BENIGN_NOTES, secretCorpus } from "./credential-corpus.js";
import { fixture, nativeError } from "./support.js";

describe("CAP-6 credential detection", () => {
  it("CAP-6 precision and recall on the corpus are both at least 0.95", () => {
    const secrets = secretCorpus();
    expect(secrets.length).toBeGreaterThanOrEqual(40);
    expect(BENIGN_NOTES.length).toBeGreaterThanOrEqual(40);
    const missed = secrets.filter((s) => detectCredential(s) === null);
    const falseAlarms = BENIGN_NOTES.filter((n) => detectCredential(n) !== null);
    const truePositives = secrets.length - missed.length;
    const precision = truePositives / (truePositives + falseAlarms.length);
    const recall = truePositives / secrets.length;
    // The figures and what was missed, printed when a bound fails (a passing run is quiet, ARCH-12).
    // eslint-disable-next-line no-console
    if (precision < 0.95 || recall < 0.95) console.log(
      `credential detection: ${secrets.length} secrets, ${BENIGN_NOTES.length} benign notes; ` +
        `precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}\n` +
        `missed kinds: ${missed.map((s) => s.slice(0, 24)).join(" | ") || "none"}\nfalse alarms: ${falseAlarms.join(" | ") || "none"}`,
    );
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it("CAP-6 remember refuses a credential in markdown, title or memoryId with input_validation and writes nothing", async () => {
    const fx = await fixture();
    const memory = fx.tool(IDS.memory);
    const secret = secretCorpus()[4];
    for (const [field, args] of [
      ["markdown", { action: "remember", markdown: `note: ${secret}` }],
      ["title", { action: "remember", title: secret, markdown: "ok" }],
      ["memoryId", { action: "remember", memoryId: secret.split(" ").pop(), markdown: "ok" }],
    ] as const) {
      const error = await nativeError(memory.execute("t", args));
      expect(error).toMatchObject({ code: "input_validation", field });
      expect(error.message).not.toContain(secret.split(" ").pop());
    }
    expect((await fx.storage.knowledge.list("project-1", {})).items).toHaveLength(0);
    for (const note of BENIGN_NOTES.slice(0, 5)) await memory.execute("t", { action: "remember", markdown: note });
    expect((await fx.storage.knowledge.list("project-1", {})).items).toHaveLength(5);
  });
});
