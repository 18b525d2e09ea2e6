"""Drives the deploy-after stdio server through its MRTR rounds like a 2026-07-28 client:
call, answer the inputRequests, retry with the byte-identical requestState.

    cargo build -p deploy-after && python3 examples/deploy/after/smoke.py
"""
import json, subprocess
import os, sys
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "debug", "deploy-after")
p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": {"name": "smoke", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
answers = {"s1.ok": {"action": "accept", "content": {"confirm": True}},
           "s2.ticket": {"action": "accept", "content": {"id": "CHG-42"}},
           "s2.notes": {"action": "accept", "content": {"text": "faster deploys"}}}
params = {"name": "deploy_production", "arguments": {"version": "1.4.2"}, "_meta": meta}
for i in range(1, 6):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}) + "\n"); p.stdin.flush()
    reply = json.loads(p.stdout.readline())
    result = reply.get("result", reply)
    if result.get("resultType") != "input_required":
        print("round", i, "->", json.dumps(result)[:300]); break
    keys = sorted(result["inputRequests"])
    print("round", i, "-> input_required", keys, "state", len(result["requestState"]), "bytes")
    params = dict(params, requestState=result["requestState"], inputResponses={k: answers[k] for k in keys})
p.kill()
