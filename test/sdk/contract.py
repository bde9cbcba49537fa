"""Runs calls of the reference Python SDK (redpine-sdk) and prints one JSON line per call.

Driven by test/sdk/redpineSdk.e2e.spec.ts with the venv's python; the SDK reads REDPINE_BASE_URL and
REDPINE_API_KEY from the environment, as a user's program would. argv[1] is a JSON list of calls:

  {"name": "...", "method": "search", "args": [...], "kwargs": {...}, "maxRetries": 0}

A string argument "$name.path" is replaced by a value from an earlier call's result, e.g.
"$preview.queryId" or "$preview.results.0.id", so one run can chain search -> get_results and preview -> unlock.

Each line: {"name", "ok": true, "type": <model class>, "value": <model.to_dict()>, "unmodelled": {...}} or
{"name", "ok": false, "error": <exception class>, "status", "code", "retryAfter", "message"}.
"unmodelled" lists the response fields the SDK's models do not declare (kept in additional_properties), at the
top level and on the first result row: where the service, following the spec, says more than the SDK knows.
"""

from __future__ import annotations

import json
import sys

import redpine
from redpine import Redpine, RedpineError


def unmodelled(model: object) -> dict:
    out: dict = {}
    keys = getattr(model, "additional_keys", None)
    if keys is not None:
        out["top"] = sorted(keys)
    results = getattr(model, "results", None)
    if isinstance(results, list) and results and hasattr(results[0], "additional_keys"):
        out["row"] = sorted(results[0].additional_keys)
    items = getattr(model, "collections", None)
    if isinstance(items, list) and items and hasattr(items[0], "additional_keys"):
        out["row"] = sorted(items[0].additional_keys)
    return out


def resolve(value, done: dict):
    if isinstance(value, str) and value.startswith("$"):
        name, *path = value[1:].split(".")
        current = done[name]
        for part in path:
            current = current[int(part)] if isinstance(current, list) else current[part]
        return current
    if isinstance(value, list):
        return [resolve(v, done) for v in value]
    if isinstance(value, dict):
        return {k: resolve(v, done) for k, v in value.items()}
    return value


def main() -> None:
    calls = json.loads(sys.argv[1])
    done: dict = {}
    clients: dict = {}
    for call in calls:
        name = call["name"]
        line: dict = {"name": name, "sdkVersion": redpine.__version__}
        try:
            retries = call.get("maxRetries", 0)
            if retries not in clients:
                clients[retries] = Redpine(max_retries=retries)
            method = getattr(clients[retries], call["method"])
            result = method(*resolve(call.get("args", []), done), **resolve(call.get("kwargs", {}), done))
            value = result.to_dict() if hasattr(result, "to_dict") else result
            done[name] = value
            line.update(ok=True, type=type(result).__name__, value=value, unmodelled=unmodelled(result))
        except RedpineError as e:
            line.update(
                ok=False,
                error=type(e).__name__,
                status=e.status,
                code=e.code,
                retryAfter=getattr(e, "retry_after", None),
                message=e.message,
            )
        except Exception as e:  # anything else (a model that cannot parse the response) is reported, not hidden
            line.update(ok=False, error=type(e).__name__, status=None, code=None, retryAfter=None, message=repr(e))
        print(json.dumps(line), flush=True)
    for client in clients.values():
        client.close()


if __name__ == "__main__":
    main()
