"""Validates answers of `prefs serve` against the OFREP OpenAPI document (ofrep/openapi.yaml
with ofrep/openapi-0.3-additions.yaml merged in), with jsonschema (PyPI) resolving its $refs.

  ofrep_schema.py CASES.json [ofrep/openapi-0.3.0.yaml]

With a second argument, that document alone is read (OFREP 0.3.0 holds codeDefaultFlag and
eventStreams itself), as meant in the same way.

CASES.json is a list of {"name", "path", "status", "body"} (an HTTP answer: `path` is the
document's path template, `body` the text received) or {"name", "event", "data"} (the `data`
of a server-sent event, checked against sseEventData). One line per case: "ok NAME" or
"FAIL NAME: why"; then "literal NAME: ok|fails" for the answers the document's literal oneOf
would judge otherwise. Exit status 1 when a case failed.

The document's `oneOf` over value types is read as it is meant (see docs/serve.md): which arm
applies follows from the JSON type of `value` (an integer is integerFlag, not also
floatFlag), codeDefaultFlag is the success without `value`, and a bulk item is a failure when it
has `errorCode`. Read literally, integerFlag and floatFlag both match an integer and
codeDefaultFlag (any object) matches every answer, so no answer with a value would be valid.
"""
import copy
import json
import os
import sys

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ofrep")
BASE = "urn:ofrep:openapi"


def load():
    with open(os.path.join(HERE, "openapi.yaml"), encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    with open(os.path.join(HERE, "openapi-0.3-additions.yaml"), encoding="utf-8") as f:
        add = yaml.safe_load(f)
    schemas = spec["components"]["schemas"]
    schemas.update(add["schemas"])
    schemas["codeDefaultFlag"] = add["codeDefaultFlag"]
    value_arms = schemas["evaluationSuccess"]["allOf"][1]["oneOf"]
    value_arms.append({"$ref": "#/components/schemas/codeDefaultFlag"})
    schemas["evaluationSuccess"]["allOf"][0]["properties"]["eventStreams"] = add["eventStreams"]
    schemas["bulkEvaluationSuccess"]["properties"]["eventStreams"] = add["eventStreams"]
    for path in ("/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags"):
        spec["paths"][path]["post"].setdefault("parameters", []).extend(add["parameters"])
    return spec


def load_alone(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return yaml.safe_load(f)


def as_meant(spec):
    spec = copy.deepcopy(spec)
    schemas = spec["components"]["schemas"]
    choice = schemas["evaluationSuccess"]["allOf"][1]
    choice["anyOf"] = choice.pop("oneOf")
    schemas["integerFlag"]["not"] = {"properties": {"value": {"not": {"type": "integer"}}}, "required": ["value"]}
    schemas["floatFlag"]["not"] = {"properties": {"value": {"type": "integer"}}, "required": ["value"]}
    schemas["codeDefaultFlag"]["not"] = {"anyOf": [{"required": ["value"]}, {"required": ["errorCode"]}]}
    return spec


def validator(spec, ref):
    registry = Registry().with_resource(BASE, Resource(contents=spec, specification=DRAFT202012))
    return Draft202012Validator({"$ref": BASE + ref}, registry=registry)


def response_schema(spec, path, status):
    responses = spec["paths"][path]["post"]["responses"]
    declared = responses.get(str(status))
    if declared is None:
        return "undeclared", None
    content = declared.get("content")
    if content is None:
        return "no body", None
    return "json", content["application/json"]["schema"]["$ref"]


def check(spec, case):
    if "event" in case:
        try:
            data = json.loads(case["data"])
        except ValueError as e:
            return "data is not JSON: %s" % e
        errors = list(validator(spec, "#/components/schemas/sseEventData").iter_errors(data))
        return "; ".join(e.message for e in errors) or None
    kind, ref = response_schema(spec, case["path"], case["status"])
    if kind == "undeclared":
        return "status %s is not declared for %s" % (case["status"], case["path"])
    if kind == "no body":
        if case["status"] == 304 and case["body"] != "":
            return "304 with a body"
        return None
    try:
        body = json.loads(case["body"])
    except ValueError as e:
        return "not JSON: %s" % e
    errors = sorted(validator(spec, ref).iter_errors(body), key=lambda e: list(e.absolute_path))
    messages = []
    for error in errors:
        where = "/".join(str(p) for p in error.absolute_path) or "(root)"
        detail = error.message
        if error.context:
            detail += " [" + "; ".join(sorted({c.message for c in error.context})) + "]"
        messages.append("%s: %s" % (where, detail))
    return "; ".join(messages) or None


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    literal = load_alone(sys.argv[2]) if len(sys.argv) > 2 else load()
    meant = as_meant(literal)
    failed = False
    for case in cases:
        why = check(meant, case)
        if why is None:
            print("ok", case["name"])
        else:
            failed = True
            print("FAIL %s: %s" % (case["name"], why))
    for case in cases:
        if "event" not in case and check(meant, case) is None and check(literal, case) is not None:
            print("literal %s: fails" % case["name"])
    sys.exit(1 if failed else 0)


main()
