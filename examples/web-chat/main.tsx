/**
 * A chat page on `steamharness gateway <project> --ui` (issue 45, UI-6): `useChat` of
 * `@ai-sdk/react` over the gateway's chat route. What it shows:
 * - a reload mid-answer resumes it (`resume: true`: the transport reads `GET /v1/ui/chat/{id}/stream`,
 *   a replay of the durable log), because the chat id is kept in the page's URL (`?chat=`);
 * - a tool needing approval gets Approve/Deny buttons (`addToolApprovalResponse`), and the answer
 *   is sent on its own (`sendAutomaticallyWhen`);
 * - a plan waiting for approval (a `plan` tool part) gets Build/Revise/Reject buttons through the
 *   same flow: a denial's reason is the feedback the agent revises the plan with, none ends the turn;
 * - Steer, while an answer streams, posts the typed message with `steer: true`: the running turn
 *   takes it at its next step boundary, and it shows inside the answer (a `steering-message` part).
 *   It is posted with `fetch`, beside `useChat`'s own request, which keeps streaming the answer;
 * - Stop posts `/v1/ui/chat/{id}/stop`: `useChat`'s `stop()` only drops the connection, which the
 *   gateway (rightly) treats as a disconnect, leaving the turn running.
 * The token comes from the URL fragment (`#token=…`, never sent to the server) or a prompt.
 */
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from "ai";
import { useMemo, useState } from "react";
import { createRoot } from "react-dom/client";

const API = "/v1/ui/chat";

function tokenOfPage(): string {
  const fromFragment = new URLSearchParams(location.hash.slice(1)).get("token");
  const token = fromFragment ?? sessionStorage.getItem("steamharness-token") ?? prompt("Gateway token (STEAMHARNESS_GATEWAY_TOKEN or an API key)") ?? "";
  sessionStorage.setItem("steamharness-token", token);
  return token;
}

/** The chat id kept in the URL, so a reload asks the gateway for this chat's active stream; `reloaded` when it was there. */
function chatOfPage(): { id: string; reloaded: boolean } {
  const url = new URL(location.href);
  const kept = url.searchParams.get("chat");
  const id = kept ?? crypto.randomUUID();
  url.searchParams.set("chat", id);
  history.replaceState(null, "", url);
  return { id, reloaded: kept !== null };
}

type Part = UIMessage["parts"][number];
interface ToolPart {
  type: string;
  toolName?: string;
  state: string;
  input?: unknown;
  output?: unknown;
  approval?: { id: string; approved?: boolean };
}

type Answer = (id: string, approved: boolean, reason?: string) => void;

/** A plan waiting for approval: build it, revise it with the feedback typed beside it, or reject it (the turn ends). */
function PlanView({ part, answer }: { part: ToolPart; answer: Answer }) {
  const [feedback, setFeedback] = useState("");
  const plan = (part.input as { plan?: string } | undefined)?.plan ?? "";
  const approval = part.state === "approval-requested" ? part.approval : undefined;
  return (
    <div className="tool plan" data-testid="plan" data-state={part.state}>
      <pre>{plan}</pre>
      {approval ? (
        <>
          <button onClick={() => answer(approval.id, true)}>Build</button>{" "}
          <input aria-label="Plan feedback" value={feedback} onChange={(event) => setFeedback(event.target.value)} placeholder="What to change…" />{" "}
          <button onClick={() => answer(approval.id, false, feedback.trim())} disabled={!feedback.trim()}>
            Revise
          </button>{" "}
          <button onClick={() => answer(approval.id, false)}>Reject</button>
        </>
      ) : (
        <span className="status"> · {part.state}</span>
      )}
    </div>
  );
}

function ToolView({ part, answer }: { part: ToolPart; answer: Answer }) {
  const name = part.toolName ?? part.type.replace(/^tool-/, "");
  if (name === "plan") return <PlanView part={part} answer={answer} />;
  return (
    <div className="tool" data-testid="tool" data-state={part.state}>
      {name}({JSON.stringify(part.input ?? {})}) · {part.state}
      {part.state === "approval-requested" && part.approval ? (
        <>
          {" "}
          <button onClick={() => answer(part.approval!.id, true)}>Approve</button> <button onClick={() => answer(part.approval!.id, false)}>Deny</button>
        </>
      ) : null}
    </div>
  );
}

function PartView({ part, answer }: { part: Part; answer: Answer }) {
  if (part.type === "text") return <div data-testid="text">{part.text}</div>;
  if (part.type === "steering-message") {
    return <div className="steer" data-testid="steer">↪ {part.parts.map((inner) => (inner.type === "text" ? inner.text : "")).join("")}</div>;
  }
  if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) return <ToolView part={part as ToolPart} answer={answer} />;
  return null;
}

function Chat({ id, reloaded, token }: { id: string; reloaded: boolean; token: string }) {
  const headers = useMemo(() => ({ authorization: `Bearer ${token}` }), [token]);
  const { messages, sendMessage, status, stop, addToolApprovalResponse, error } = useChat({
    id,
    transport: new DefaultChatTransport({ api: API, headers }),
    // A new chat has no stream to resume (the gateway answers 404 for a chat it never saw).
    resume: reloaded,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState("");
  const answer: Answer = (approvalId, approved, reason) => void addToolApprovalResponse({ id: approvalId, approved, ...(reason ? { reason } : {}) });
  const busy = status === "streaming" || status === "submitted";
  const steer = async () => {
    const text = input.trim();
    if (!text) return;
    setInput("");
    // The chat route's own body with `steer: true`; its response only says where the message went.
    const response = await fetch(API, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ id, messages: [{ id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text }] }], trigger: "submit-message", steer: true }),
    });
    await response.body?.cancel();
  };
  const stopTurn = async () => {
    // The server-side stop first: dropping the connection alone would leave the turn running.
    await fetch(`${API}/${encodeURIComponent(id)}/stop`, { method: "POST", headers });
    await stop();
  };
  return (
    <main>
      <h1>steamharness web chat</h1>
      {messages.map((message) => (
        <div key={message.id} className={`message ${message.role}`} data-testid={`message-${message.role}`}>
          {message.parts.map((part, index) => (
            <PartView key={index} part={part} answer={answer} />
          ))}
          {message.role === "assistant" ? <div className="status" data-testid="message-status">{String((message.metadata as { status?: string } | undefined)?.status ?? "")}</div> : null}
        </div>
      ))}
      {error ? <p role="alert">{error.message}</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!input.trim()) return;
          void sendMessage({ text: input });
          setInput("");
        }}
      >
        <input aria-label="Message" value={input} onChange={(event) => setInput(event.target.value)} placeholder="Ask the agent…" />
        <button type="submit" disabled={busy}>
          Send
        </button>
        <button type="button" onClick={() => void steer()} disabled={!busy}>
          Steer
        </button>
        <button type="button" onClick={() => void stopTurn()} disabled={!busy}>
          Stop
        </button>
      </form>
      <p className="status" data-testid="chat-status">{status}</p>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<Chat {...chatOfPage()} token={tokenOfPage()} />);
