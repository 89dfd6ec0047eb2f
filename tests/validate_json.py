# SPDX-License-Identifier: BSD-3-Clause
"""tests/validate_json.py SCHEMA_DIR NAME FILE... — each FILE against
docs/schemas/NAME.schema.json (JSON Schema 2020-12, python3-jsonschema),
a sweep's embedded reports against their own command's schema.  Prints
one line per file, "ok FILE" or "FAIL FILE: path: message", and exits 1
when one failed; 77 when jsonschema is missing (the test's SKIP)."""
import glob
import json
import os
import sys

try:
    import jsonschema
    from jsonschema import RefResolver
except ImportError:
    sys.exit(77)

FOR_COMMAND = {"check": "collective", "sim": "collective", "run": "collective", "p2p": "p2p"}


def load_schemas(d):
    out = {}
    for f in sorted(glob.glob(os.path.join(d, "*.schema.json"))):
        s = json.load(open(f))
        jsonschema.Draft202012Validator.check_schema(s)
        out[s["$id"]] = s
    return out


def errors(schemas, name, doc):
    s = schemas["urn:cclab:schema:" + name]
    v = jsonschema.Draft202012Validator(s, resolver=RefResolver.from_schema(s, store=schemas))
    errs = [f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message[:200]}" for e in v.iter_errors(doc)]
    if name == "sweep":
        for p in doc.get("points", []):
            r = p.get("report")
            if isinstance(r, dict):
                sub = FOR_COMMAND.get(r.get("command"), "p2p" if "op" in r else "collective")
                errs += [f"points/{p.get('point')}/report/{e}" for e in errors(schemas, sub, r)]
    return errs


def main():
    schemas = load_schemas(sys.argv[1])
    bad = 0
    for f in sys.argv[3:]:
        errs = errors(schemas, sys.argv[2], json.load(open(f)))
        print(f"ok   {f}" if not errs else f"FAIL {f}: " + "; ".join(errs[:3]))
        bad += bool(errs)
    sys.exit(1 if bad else 0)


main()
