"""Evaluates flags through the OpenFeature Python SDK and its OFREP provider (PyPI:
openfeature-sdk, openfeature-provider-ofrep) against a running `prefs serve`.

  ofrep_sdk.py URL eval CASES.json   one JSON line per case: value, variant, reason, errorCode
  ofrep_sdk.py URL watch FLAG        prints "ready", waits for a line on stdin, then polls FLAG
                                     until it answers the code default (False) and prints the
                                     seconds it took
"""
import json
import sys
import time

from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.evaluation_context import EvaluationContext


def plain(x):
    return getattr(x, "value", x)


def main():
    url, mode, argument = sys.argv[1], sys.argv[2], sys.argv[3]
    api.set_provider(OFREPProvider(url))
    client = api.get_client()
    if mode == "eval":
        with open(argument, encoding="utf-8") as f:
            cases = json.load(f)
        for case in cases:
            context = dict(case["context"])
            key = context.pop("targetingKey", None)
            method = {
                "boolean": client.get_boolean_details,
                "string": client.get_string_details,
                "integer": client.get_integer_details,
                "float": client.get_float_details,
                "object": client.get_object_details,
            }[case["type"]]
            details = method(case["flag"], case["default"], EvaluationContext(key, context))
            print(json.dumps({
                "value": details.value,
                "variant": details.variant,
                "reason": plain(details.reason),
                "errorCode": plain(details.error_code),
            }, ensure_ascii=False), flush=True)
    elif mode == "watch":
        first = client.get_boolean_details(argument, False)
        print("ready", plain(first.reason), flush=True)
        sys.stdin.readline()
        start = time.monotonic()
        while time.monotonic() - start < 10:
            details = client.get_boolean_details(argument, False)
            # The code default (False), reason DISABLED.
            if details.value is False:
                print("disabled after %.3f" % (time.monotonic() - start), flush=True)
                return
            time.sleep(0.02)
        print("still %s after 10 s" % plain(details.reason), flush=True)


main()
