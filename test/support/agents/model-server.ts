import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted model server on 127.0.0.1 for driving the real agent CLIs offline in tests:
 * the Anthropic Messages API (`POST /v1/messages`, streaming SSE or JSON; what Claude Code 2.1
 * speaks) and OpenAI-compatible chat completions (`POST /v1/chat/completions`, streaming; what
 * opencode's `@ai-sdk/openai-compatible` provider speaks). The test's `script` chooses each reply.
 */

/** One tool call the scripted model makes. `input` is the tool's JSON arguments. */
export interface ScriptedToolCall {
  name: string;
  input: Record<string, unknown>;
}

/**
 * Claude Code's server-side auto-mode check of a tool call (2.1.332): the Anthropic API answers
 * it in the streamed `message_delta` as `delta.safeguard_results` (type `dangerous_tool_use`),
 * one outcome per tool_use id. `flagged` = the check rates the call dangerous.
 */
export interface ScriptedSafeguard {
  outcome: "flagged" | "not_flagged";
  /** The check's reason, shown to the person and the model when flagged. */
  explanation?: string;
}

/**
 * What the scripted model answers: plain text, or tool calls (then the agent runs them and asks
 * again), optionally with the server-side auto-mode verdict on those calls (`safeguard`).
 */
export type ScriptedReply =
  { text: string } | { toolCalls: ScriptedToolCall[]; safeguard?: ScriptedSafeguard };

/** One request the server received, as parsed JSON, with the API it came in on. */
export interface ModelRequest {
  api: "anthropic" | "openai";
  body: Record<string, unknown>;
  /** The whole request body as text (for "does the next request contain the comment" checks). */
  text: string;
}

/** The test's policy: given a request (and all before it), the reply; may wait (a gate the test opens). */
export type ModelScript = (
  req: ModelRequest,
  all: ModelRequest[],
) => ScriptedReply | Promise<ScriptedReply>;

/** A running scripted model server. */
export interface ModelServer {
  /** `http://127.0.0.1:PORT` (Claude Code's ANTHROPIC_BASE_URL; opencode's baseURL is this + `/v1`). */
  url: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

let callSeq = 0;

/** Whether a request is the agent's main loop (it offers tools), not a title or quota side request. */
export function offersTools(req: ModelRequest): boolean {
  return Array.isArray(req.body.tools) && req.body.tools.length > 0;
}

/**
 * The tool results in the request's last user message, as `{toolName, content, isError}`;
 * tool names are read back from our own call ids (`call_<name>_<n>` / `toolu_<name>_<n>`).
 */
export function lastToolResults(
  req: ModelRequest,
): { toolName: string; content: string; isError: boolean }[] {
  const messages = (req.body.messages ?? []) as Record<string, unknown>[];
  const nameOf = (id: unknown) =>
    typeof id === "string" ? (/^(?:toolu|call)_(.+)_\d+$/.exec(id)?.[1] ?? "") : "";
  const stringify = (c: unknown) => (typeof c === "string" ? c : JSON.stringify(c));
  if (req.api === "anthropic") {
    // Claude Code may append a `system` message after the tool results (e.g. "Exited Plan Mode").
    const last = messages.findLast((m) => m.role !== "system");
    if (!last || last.role !== "user" || !Array.isArray(last.content)) return [];
    return (last.content as Record<string, unknown>[])
      .filter((b) => b.type === "tool_result")
      .map((b) => ({
        toolName: nameOf(b.tool_use_id),
        content: stringify(b.content),
        isError: b.is_error === true,
      }));
  }
  const out: { toolName: string; content: string; isError: boolean }[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) {
    out.unshift({
      toolName: nameOf(messages[i]!.tool_call_id),
      content: stringify(messages[i]!.content),
      isError: false,
    });
  }
  return out;
}

function sse(res: http.ServerResponse, event: string | null, data: unknown): void {
  if (event) res.write(`event: ${event}\n`);
  res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

function anthropicReply(
  res: http.ServerResponse,
  body: Record<string, unknown>,
  reply: ScriptedReply,
): void {
  const model = typeof body.model === "string" ? body.model : "scripted";
  type Block =
    | { type: "text"; text: string }
    | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
  const blocks: Block[] =
    "text" in reply
      ? [{ type: "text", text: reply.text }]
      : reply.toolCalls.map((c) => ({
          type: "tool_use" as const,
          id: `toolu_${c.name}_${++callSeq}`,
          name: c.name,
          input: c.input,
        }));
  const stopReason = "text" in reply ? "end_turn" : "tool_use";
  const usage = {
    input_tokens: 10,
    output_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const message = {
    id: `msg_${++callSeq}`,
    type: "message",
    role: "assistant",
    model,
    stop_reason: null,
    stop_sequence: null,
    usage,
  };
  if (body.stream !== true) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ...message, content: blocks, stop_reason: stopReason }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  sse(res, "message_start", { type: "message_start", message: { ...message, content: [] } });
  blocks.forEach((b, index) => {
    if (b.type === "text") {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: b.text },
      });
    } else {
      sse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: b.id, name: b.name, input: {} },
      });
      sse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) },
      });
    }
    sse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  const safeguard = "toolCalls" in reply ? reply.safeguard : undefined;
  const toolUseIds = blocks.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));
  sse(res, "message_delta", {
    type: "message_delta",
    delta: {
      stop_reason: stopReason,
      stop_sequence: null,
      ...(safeguard && {
        safeguard_results: [
          {
            type: "dangerous_tool_use",
            status: {
              type: "available",
              tool_uses: Object.fromEntries(
                toolUseIds.map((id) => [id, { type: "evaluated", ...safeguard }]),
              ),
            },
          },
        ],
      }),
    },
    usage: { output_tokens: 10 },
  });
  sse(res, "message_stop", { type: "message_stop" });
  res.end();
}

function openaiReply(
  res: http.ServerResponse,
  body: Record<string, unknown>,
  reply: ScriptedReply,
): void {
  const base = {
    id: `chatcmpl-${++callSeq}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: String(body.model ?? "scripted"),
  };
  const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
  const toolCalls =
    "toolCalls" in reply
      ? reply.toolCalls.map((c, index) => ({
          index,
          id: `call_${c.name}_${++callSeq}`,
          type: "function",
          function: { name: c.name, arguments: JSON.stringify(c.input) },
        }))
      : [];
  if (body.stream !== true) {
    res.writeHead(200, { "content-type": "application/json" });
    const message =
      "text" in reply
        ? { role: "assistant", content: reply.text }
        : {
            role: "assistant",
            content: null,
            tool_calls: toolCalls.map(({ index: _i, ...c }) => c),
          };
    res.end(
      JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: "text" in reply ? "stop" : "tool_calls" }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const delta =
    "text" in reply
      ? { role: "assistant", content: reply.text }
      : { role: "assistant", content: null, tool_calls: toolCalls };
  sse(res, null, { ...base, choices: [{ index: 0, delta, finish_reason: null }] });
  sse(res, null, {
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: "text" in reply ? "stop" : "tool_calls" }],
    usage,
  });
  sse(res, null, "[DONE]");
  res.end();
}

/** Starts the scripted model server on a free port of 127.0.0.1. */
export async function startModelServer(script: ModelScript): Promise<ModelServer> {
  const requests: ModelRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "";
        const text = Buffer.concat(chunks).toString("utf8");
        if (req.method !== "POST") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            url.includes("models")
              ? JSON.stringify({ object: "list", data: [{ id: "scripted", object: "model" }] })
              : "{}",
          );
          return;
        }
        if (url.includes("count_tokens")) {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ input_tokens: 10 }));
          return;
        }
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // keep {}
        }
        const api = url.includes("chat/completions") ? "openai" : "anthropic";
        const request: ModelRequest = { api, body, text };
        requests.push(request);
        try {
          const reply = await script(request, requests);
          (api === "openai" ? openaiReply : anthropicReply)(res, body, reply);
        } catch (err) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: String(err) } }));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
