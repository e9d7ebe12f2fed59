"""Drive empiric's MCP server with the official Python MCP SDK (`mcp` 2.x from PyPI).

    python3 mcp_python_client.py stdio <command> [args...]
    python3 mcp_python_client.py http <url>

Calls every tool once with good arguments (and one bad call), reads a resource and a prompt,
and prints one JSON object with what came back, for the Deno test to check.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


async def exercise(session: ClientSession) -> dict:
    init = await session.initialize()
    out: dict = {"protocol": init.protocol_version, "server": init.server_info.name}
    tools = await session.list_tools()
    out["tools"] = sorted(t.name for t in tools.tools)
    results = {}
    scenarios = await session.call_tool("list_scenarios", {})
    results["list_scenarios"] = scenarios.structured_content
    claim = await session.call_tool("get_scenario_claim", {"name": "arithmetic-accuracy"})
    results["get_scenario_claim"] = claim.structured_content
    canon = await session.call_tool("canonicalize_value", {"value_json": '{"b": 1.0, "a": 1}'})
    results["canonicalize_value"] = canon.structured_content
    run = await session.call_tool("run_scenario", {"scenario": "arithmetic-accuracy"})
    results["run_scenario"] = run.structured_content
    index = await session.call_tool("read_proof_index", {"limit": 5})
    results["read_proof_index"] = index.structured_content
    proof_id = run.structured_content["proof_id"]
    record = await session.read_resource(f"empiric://proofs/{proof_id}")
    text = record.contents[0].text
    verify = await session.call_tool("verify_proof", {"proof_json": text})
    results["verify_proof"] = verify.structured_content
    bad = await session.call_tool("get_scenario_claim", {"name": "no-such-scenario"})
    results["bad"] = {"isError": bad.is_error, "text": bad.content[0].text}
    prompts = await session.list_prompts()
    out["prompts"] = sorted(p.name for p in prompts.prompts)
    out["results"] = results
    return out


async def main() -> None:
    mode = sys.argv[1]
    if mode == "stdio":
        params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                out = await exercise(session)
    else:
        async with streamable_http_client(sys.argv[2]) as (read, write):
            async with ClientSession(read, write) as session:
                out = await exercise(session)
    print(json.dumps(out))


asyncio.run(main())
