"""docs/reference.md from the problem and study schemas that schema/generate.py builds: one
section per model and task, a table of its fields (name, type, default, meaning, limits),
the optimizer block and the study file. generate.py writes it beside the schemas and
`generate.py --check` compares it too (tests/test_schema.c)."""
import json

HEAD = """# Problem-file reference

<!-- Written by schema/generate.py from the tables that write schema/*.schema.json: do not
edit; run /usr/bin/python3 schema/generate.py (make test fails while this file is stale). -->

Every field of every problem file, by model and task, and of the study file: its type, its
default (what the reader takes when the field is absent or `null`), its meaning and the
limits the reader enforces. The same facts, machine-readable, are in
`schema/problem.schema.json` and `schema/study.schema.json` ([results.md](results.md#file-formats-as-json-schema)).
Every file has `task` and `model`; a field that is not listed is refused. Sizes and
combinations that depend on other fields (a vector's length on the group, members of one
method or scheme only, `T` = `h` × `steps`) are in the schema and checked by
`symplan check`; the family guides explain the fields in words:
[keyframes.md](keyframes.md), [subriemannian.md](subriemannian.md),
[holonomic.md](holonomic.md), [contact.md](contact.md),
[custom-models.md](custom-models.md), [studies.md](studies.md). The resource limits
(`--max-steps` and the like) are in [command.md](command.md#resource-limits).
"""

FAMILY_GUIDE = {"cubic_spline": "keyframes.md", "vakonomic": "subriemannian.md", "holonomic": "holonomic.md",
                "nonholonomic": "contact.md", "nonholonomic on a Lie group": "contact.md",
                "an expression model": "custom-models.md", "car": "subriemannian.md"}


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def num(x):
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e6:
        return str(int(x))
    return json.dumps(x).replace("e-0", "e-")


def strip_null(s):
    """The schema without the null an optional member admits."""
    s = dict(s)
    if isinstance(s.get("type"), list):
        t = [x for x in s["type"] if x != "null"]
        s["type"] = t[0] if len(t) == 1 else t
    if "enum" in s:
        s["enum"] = [x for x in s["enum"] if x is not None]
    if "anyOf" in s:
        s["anyOf"] = [x for x in s["anyOf"] if x != {"type": "null"}]
        if len(s["anyOf"]) == 1 and set(s) <= {"anyOf", "description", "default"}:
            inner = dict(s["anyOf"][0])
            inner.update({k: s[k] for k in ("description", "default") if k in s})
            s = inner
    return s


def bounds(s):
    out = []
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in s:
            out.append("%s %s" % (sign, num(s[key])))
    return ", ".join(out)


def describe(s):
    """(type, limits) of a member's schema, in words."""
    s = strip_null(s)
    if "$ref" in s:
        name = s["$ref"].split("/")[-1]
        return ("[%s](#the-optimizer-block)" % name if name == "optimizer" else
                "[%s](#rotations-and-quaternions)" % name), ""
    if "const" in s:
        return "`%s`" % json.dumps(s["const"]).strip('"'), ""
    if "enum" in s:
        names = s["enum"]
        if len(names) > 20:
            return "name", "one of %d names (`symplan list`)" % len(names)
        return "name", "one of " + ", ".join("`%s`" % n for n in names)
    if "anyOf" in s:
        parts = [describe(x) for x in s["anyOf"]]
        return " or ".join(p[0] for p in parts), "; ".join(p[1] for p in parts if p[1])
    t = s.get("type")
    if t in ("number", "integer"):
        return t, bounds(s)
    if t == "array":
        lo, hi = s.get("minItems"), s.get("maxItems")
        item = s.get("items", {})
        what, lim = describe(item) if item else ("value", "")
        if item.get("type") == "array":
            what = "row"
        if lo is None and hi is None:
            count = ""
        elif hi is None:
            count = "at least %d item%s" % (lo, "" if lo == 1 else "s")
        else:
            count = "%d items" % lo if lo == hi else "%s–%s items" % (lo or 0, hi)
        limits = ", ".join(x for x in (count, "each " + lim if lim else "") if x)
        return "array of %s" % (what if what != "number" else "numbers"), limits
    if t == "object":
        return "object", ""
    if t == "boolean":
        return "boolean", ""
    if t == "string":
        lim = []
        if "pattern" in s:
            lim.append("a name")
        if "maxLength" in s:
            lim.append("at most %d characters" % s["maxLength"])
        return "string", ", ".join(lim)
    return "any", ""


def default_of(s, required):
    if "default" in s:
        v = s["default"]
        if isinstance(v, str):
            return "`%s`" % v if " " not in v and ";" not in v else v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return "`%s`" % num(v)
        return "`%s`" % json.dumps(v, ensure_ascii=False).replace(".0,", ",").replace(".0]", "]")
    return "required" if required else "–"


def rows(props, required, prefix=""):
    out = []
    for name, s in props.items():
        if name in ("task", "model") and not prefix:
            continue
        plain = strip_null(s)
        if s.get("type") == "null" or plain.get("type") == "null":
            continue
        typ, lim = describe(s)
        meaning = s.get("description") or ("the NLopt optimiser; null or absent: the defaults"
                                           if name == "optimizer" else "")
        out.append("| `%s%s` | %s | %s | %s | %s |" % (prefix, name, cell(typ), cell(default_of(s, name in required)),
                                                      cell(meaning), cell(lim)))
        # an object's members, also where the member may be an object or something else
        for o in [plain] + plain.get("anyOf", []):
            if o.get("type") == "object" and "properties" in o:
                out += rows(o["properties"], o.get("required", []), prefix + name + ".")
    return out


def table(props, required, prefix=""):
    return ["| field | type | default | meaning | limits |", "|---|---|---|---|---|"] + rows(props, required, prefix)


def markdown(problem, study, keyframes):
    """keyframes: (title, schema) of each form of a keyframe plan's targets."""
    defs = problem["$defs"]
    lines = HEAD.split("\n")
    toc, body = [], []
    for key, s in defs.items():
        if "_" not in key or key == "matrix3":
            continue
        title = s["description"]  # "model task (family)"
        head, family = title.split(" (", 1)
        family = family.rstrip(")")
        if key.startswith("custom_"):
            model, kind, task = key.split("_")
            head = "custom %s, %s" % (kind, task)
            const = "`\"model\": \"custom\", \"kind\": \"%s\", \"task\": \"%s\"`" % (kind, task)
        else:
            model, task = key.rsplit("_", 1)
            head = "%s, %s" % (model, task)
            const = "`\"model\": \"%s\", \"task\": \"%s\"`" % (model, task)
        anchor = head.replace(",", "").replace(" ", "-").lower()
        toc.append("[%s](#%s)" % (head, anchor))
        body += ["", "## %s" % head, "",
                 "%s, family %s; guide: [%s](%s)." % (const, family, FAMILY_GUIDE[family], FAMILY_GUIDE[family]), ""]
        body += table(s["properties"], s.get("required", []))
        if key == "cubic_spline_plan":
            body += ["", "The keyframes (`targets`), by `group` and `space`:", ""]
            for what, t in keyframes:
                fields = ", ".join("`%s` (%s)" % (k, v["description"]) for k, v in t["properties"].items())
                body.append("- %s: %s%s." % (what, fields, "; `R` or `q`" if "oneOf" in t else ""))
    opt = strip_null(defs["optimizer"])
    body += ["", "## The optimizer block", "",
             "`optimizer` in a keyframe plan (methods `direct` and `single_shooting`) and in an endpoint plan: "
             "%s." % defs["optimizer"]["description"], ""]
    body += table(opt["properties"], [], "optimizer.")
    body += ["", "## Rotations and quaternions", ""]
    for name in ("rotation", "matrix3", "quaternion"):
        body.append("- `%s`: %s." % (name, defs[name]["description"]))
    body += ["", "## The study file", "", study["description"] + " ([studies.md](studies.md))", ""]
    body += table(study["properties"], study.get("required", []))
    body += ["", "A study has `vary` or `cases`, not both."]
    lines += ["Models and tasks: " + ", ".join(toc) + "; [the optimizer block](#the-optimizer-block), "
              "[rotations and quaternions](#rotations-and-quaternions), [the study file](#the-study-file)."]
    return "\n".join(lines + body) + "\n"
