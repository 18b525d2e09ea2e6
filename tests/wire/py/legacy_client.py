"""A 2025-era MCP client (the Python `mcp` SDK 1.x): negotiates 2025-11-25 (or an older version)
at `initialize` and answers the server's elicitation, sampling and roots requests with callbacks,
the way clients in the field do today.

    python legacy_client.py PLAN_JSON

PLAN_JSON: {"transport": "http", "url": ...} or {"transport": "stdio", "command": [...]},
"protocol": "2025-11-25" (optional), "capabilities": ["elicitation", "sampling", "roots"],
"tool": name (or "prompt": name, for prompts/get), "arguments": {...}, "answers": {field: value | "decline" | "cancel"},
"sample_text": "...", "roots": ["file:///..."].

Prints one JSON object: the negotiated version, every request the server sent (in arrival
order: method and the form's first field, the sampling prompt or nothing), and the tool's
result or error.
"""

import asyncio
import json
import sys

import mcp.types as types
from mcp import ClientSession


def first_field(params) -> str:
    schema = getattr(params, "requestedSchema", None) or {}
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return next(iter(properties), "")


async def run(plan: dict) -> dict:
    seen = []
    answers = plan.get("answers", {})
    declared = set(plan.get("capabilities", ["elicitation", "sampling", "roots"]))

    async def elicit(_context, params):
        field = first_field(params)
        seen.append({"method": "elicitation/create", "field": field, "message": params.message})
        answer = answers.get(field)
        if answer in ("decline", "cancel"):
            return types.ElicitResult(action=answer)
        if answer is None:
            return types.ErrorData(code=-32602, message=f"unscripted field {field!r}")
        return types.ElicitResult(action="accept", content={field: answer})

    async def sample(_context, params):
        prompt = params.messages[0].content.text if params.messages else ""
        seen.append({"method": "sampling/createMessage", "prompt": prompt})
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=plan.get("sample_text", "hello")),
            model="scripted-model",
            stopReason="endTurn",
        )

    async def roots(_context):
        seen.append({"method": "roots/list"})
        return types.ListRootsResult(
            roots=[types.Root(uri=uri) for uri in plan.get("roots", [])]
        )

    callbacks = {}
    if "elicitation" in declared:
        callbacks["elicitation_callback"] = elicit
    if "sampling" in declared:
        callbacks["sampling_callback"] = sample
    if "roots" in declared:
        callbacks["list_roots_callback"] = roots

    if plan.get("protocol"):
        # The SDK offers its latest version; pin an older one the way an older release would.
        types.LATEST_PROTOCOL_VERSION = plan["protocol"]
        import mcp.client.session as session_module

        session_module.types.LATEST_PROTOCOL_VERSION = plan["protocol"]

    async def drive(read, write):
        async with ClientSession(read, write, **callbacks) as session:
            init = await session.initialize()
            outcome = {"protocol": init.protocolVersion}
            try:
                if "prompt" in plan:
                    prompt = await session.get_prompt(plan["prompt"], plan.get("arguments", {}))
                    outcome["result"] = {
                        "text": [m.content.text for m in prompt.messages if m.content.type == "text"],
                    }
                else:
                    result = await session.call_tool(plan["tool"], plan.get("arguments", {}))
                    outcome["result"] = {
                        "text": [block.text for block in result.content if block.type == "text"],
                        "isError": bool(result.isError),
                    }
            except Exception as error:  # an McpError carries the JSON-RPC error
                data = getattr(error, "error", None)
                outcome["error"] = {
                    "code": getattr(data, "code", None),
                    "message": getattr(data, "message", str(error)),
                    "data": getattr(data, "data", None),
                }
            outcome["requests"] = seen
            return outcome

    if plan["transport"] == "http":
        from mcp.client.streamable_http import streamablehttp_client

        async with streamablehttp_client(plan["url"]) as (read, write, _session_id):
            return await drive(read, write)
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command = plan["command"]
    server = StdioServerParameters(command=command[0], args=command[1:], env=plan.get("env"))
    async with stdio_client(server) as (read, write):
        return await drive(read, write)


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run(json.loads(sys.argv[1])))))
