"""A tiny device for the tests of protocol 1.1 (tests/devices/test_devices_process_memory.py).

    python memory_device.py VERSION [--no-memory] [--garbage] [--feature-maps]

It announces protocol VERSION ("1.0", "1.1" or "1.2") with the memory, events and shared-tile
capabilities (``--no-memory``: none of them), and with ``--feature-maps`` the feature-map
capability of 1.2, and answers every case with an observation
built from what the request carried, so a test sees what the adapter sent:

- ``memory``: the image the request's ``state.memory`` describes (``size`` zero bytes, then
  each region's ``bytes`` at its ``address``), when the request gave one;
- ``events``: one Store event per region (agent 0, the region's address, one byte, the
  region's first byte as the value written, order Release);
- ``fault_address``: GPR R5 of PE 1 (``state.pe_gprs``), when the request gave it, with
  ``fault`` Fault_DataPage;
- ``shared_tiles``: each tile of ``state.shared_tiles`` as a 1 x 1 tile holding its first value;
- ``detail``: the request's ``state`` as JSON text.

``--garbage``: a case whose name ends in ``short-hex`` gets a memory image one digit short, one
ending in ``bad-kind`` an event of kind ``Flush``; the other cases are answered as above.
"""
import json
import sys

version = sys.argv[1]
memory_capable = "--no-memory" not in sys.argv
garbage = "--garbage" in sys.argv
feature_maps = "--feature-maps" in sys.argv


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def observe(case):
    state = case["state"]
    observation = {"fault": None, "flags": 0, "tiles": {}, "detail": json.dumps(state, sort_keys=True)}
    memory = state.get("memory")
    if memory is not None:
        image = bytearray(memory.get("size", 4096))
        for region in memory.get("regions", []):
            data = bytes.fromhex(region["bytes"])
            image[region["address"]:region["address"] + len(data)] = data
        observation["memory"] = {"size": len(image), "hex": image.hex()}
        observation["events"] = [{"kind": "Store", "agent": 0, "address": region["address"], "size": 1,
                                  "read": 0, "write": bytes.fromhex(region["bytes"])[0], "order": "Release"}
                                 for region in memory.get("regions", [])]
    peer = state.get("pe_gprs", {}).get("1", {})
    if "5" in peer:
        observation["fault"] = "Fault_DataPage"
        observation["fault_address"] = peer["5"]
    if state.get("shared_tiles") is not None:
        observation["shared_tiles"] = {
            str(tile["index"]): {"dtype": tile["dtype"], "rows": 1, "cols": 1, "valid": [1, 1],
                                 "words": [[tile["data"][0][0]]], "defined": [[True]]}
            for tile in state["shared_tiles"]}
    if garbage and case["id"].endswith("short-hex") and "memory" in observation:
        observation["memory"]["hex"] = observation["memory"]["hex"][:-1]
    if garbage and case["id"].endswith("bad-kind") and observation.get("events"):
        observation["events"][0]["kind"] = "Flush"
    return observation


send({"type": "hello", "protocol": "pto-avs-device", "version": version, "device": f"memory-test {version}",
      "capabilities": {"profile": "pto-v0", "operations": ["TLOAD", "TSTORE", "TCVT"], "memory": memory_capable,
                       "events": memory_capable, "shared_tiles": memory_capable, "feature_maps": feature_maps}})
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "shutdown":
        break
    send({"type": "results", "batch": message["batch"],
          "results": [{"id": case["id"], "observation": observe(case)} for case in message["cases"]]})
