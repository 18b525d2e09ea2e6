"""Drives a multi-round #[mrtr_handler] tool with the Python `mcp` SDK 2.x client.

Usage: python mrtr_client.py <server-url> <tool-name>

Three runs against one tool, each through the SDK's own MRTR loop and elicitation callback:
  1. "complete": the callback accepts both rounds (name, then colour);
  2. "declined": the callback declines the first round;
  3. "tampered": one manual round, then a retry whose requestState has one character changed.
Prints one JSON object with what each run saw; the Rust test that starts this script asserts it
together with the traffic the server recorded. Exits 3 when `mcp` is not importable, so the caller
can tell "not installed" from a failure.
"""

from __future__ import annotations

import asyncio
import json
import sys

try:
    from importlib.metadata import version

    from mcp.client.client import Client
    from mcp.shared.exceptions import MCPError
    from mcp_types import ElicitResult, InputRequiredResult
except ImportError as error:  # pragma: no cover - reported to the Rust test
    print(f"python mcp SDK not importable: {error}", file=sys.stderr)
    sys.exit(3)

PROTOCOL = "2026-07-28"


def text_of(result) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


class ScriptedUser:
    """An elicitation callback that answers from a script and remembers what it was asked."""

    def __init__(self, answers: list[ElicitResult]):
        self.answers = list(answers)
        self.asked: list[dict] = []

    async def __call__(self, context, params):
        self.asked.append({"message": params.message, "fields": sorted(params.requested_schema.get("properties", {}))})
        if not self.answers:
            raise RuntimeError(f"asked more often than scripted: {params.message!r}")
        return self.answers.pop(0)


async def run_complete(url: str, tool: str) -> dict:
    user = ScriptedUser(
        [
            ElicitResult(action="accept", content={"name": "Ada"}),
            ElicitResult(action="accept", content={"color": "teal"}),
        ]
    )
    async with Client(url, mode=PROTOCOL, elicitation_callback=user) as client:
        result = await client.call_tool(tool, {})
    return {"text": text_of(result), "is_error": bool(result.is_error), "asked": user.asked}


async def run_declined(url: str, tool: str) -> dict:
    user = ScriptedUser([ElicitResult(action="decline")])
    async with Client(url, mode=PROTOCOL, elicitation_callback=user) as client:
        result = await client.call_tool(tool, {})
    return {"text": text_of(result), "is_error": bool(result.is_error), "asked": user.asked}


def tamper(state: str) -> str:
    """Changes one character in the middle: the length and the alphabet stay plausible."""
    middle = len(state) // 2
    replacement = "A" if state[middle] != "A" else "B"
    return state[:middle] + replacement + state[middle + 1 :]


async def run_tampered(url: str, tool: str) -> dict:
    async def unused(context, params):
        raise RuntimeError("the tampered run answers by hand")

    async with Client(url, mode=PROTOCOL, elicitation_callback=unused) as client:
        first = await client.session.call_tool(tool, {}, allow_input_required=True)
        if not isinstance(first, InputRequiredResult) or not first.request_state or not first.input_requests:
            return {"error": f"expected an input_required result with state, got {first!r}"}
        (key,) = first.input_requests.keys()
        answer = {key: ElicitResult(action="accept", content={"name": "Mallory"})}
        original = first.request_state
        forged = tamper(original)
        try:
            outcome = await client.session.call_tool(
                tool, {}, input_responses=answer, request_state=forged, allow_input_required=True
            )
        except MCPError as error:
            return {"code": error.code, "message": error.message, "original": original, "forged": forged}
        return {"error": f"tampered state was accepted: {outcome!r}", "original": original, "forged": forged}


async def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    url, tool = sys.argv[1], sys.argv[2]
    report = {
        "sdk_version": version("mcp"),
        "complete": await run_complete(url, tool),
        "declined": await run_declined(url, tool),
        "tampered": await run_tampered(url, tool),
    }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
