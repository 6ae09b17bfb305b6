# Checks a Prometheus text exposition (stdin) with a real parser and the naming conventions the
# collector follows (README "Metrics"); exposition.test.ts beside it feeds it real scrapes.
# The parser is Debian's python3-prometheus-client; what it accepts leniently (a counter without
# _total, which it renames; repeated TYPE lines) is checked on the raw lines as well.
# usage: /usr/bin/python3 check-exposition.py < metrics.txt
#   exit 0: prints {"families": {name: type}, "samples": [[name, labels, value], ...]} as JSON
#   exit 1: prints one problem per line on stderr
import json
import math
import re
import sys

from prometheus_client.parser import text_string_to_metric_families

SNAKE = re.compile(r"^[a-z_][a-z0-9_]*$")
# A label value in camelCase or PascalCase: a lower-case letter or digit followed by a capital.
CAMEL = re.compile(r"[a-z0-9][A-Z]")
# Units go in the name, in base units (seconds, bytes): these suffixes are not.
NON_BASE_UNITS = re.compile(r"_(ms|millis|milliseconds|microseconds|us|ns|minutes|hours|days|kb|mb|gb|kilobytes|megabytes|percent)(_total)?$")
# Labels whose values are names from another system, kept as that system spells them:
# Kubernetes Event reasons (docs/events.md), matched with `kubectl get events`.
VERBATIM_LABELS = {("k8s_collector_events_emitted_total", "reason")}
# Suffixes OpenMetrics gives to the samples of counters, histograms and summaries.
RESERVED_SUFFIXES = ("_total", "_count", "_sum", "_bucket", "_created")


def raw_problems(text):
    """What the parser lets through: TYPE/HELP once per family, before its samples; counters named *_total."""
    problems = []
    typed, helped, seen_samples = {}, set(), set()
    if text and not text.endswith("\n"):
        problems.append("the exposition does not end with a line feed")
    for n, line in enumerate(text.split("\n"), 1):
        if not line:
            continue
        m = re.match(r"^# (HELP|TYPE) (\S+)(?: (.*))?$", line)
        if m:
            kind, name, rest = m.group(1), m.group(2), (m.group(3) or "").strip()
            if kind == "TYPE":
                if name in typed:
                    problems.append(f"line {n}: a second TYPE for {name}")
                typed[name] = rest
                if rest == "counter" and not name.endswith("_total"):
                    problems.append(f"line {n}: counter {name} does not end in _total")
                if rest == "gauge" and name.endswith(RESERVED_SUFFIXES):
                    problems.append(f"line {n}: gauge {name} ends in a suffix reserved for counters and histograms")
            else:
                if name in helped:
                    problems.append(f"line {n}: a second HELP for {name}")
                helped.add(name)
                if not rest:
                    problems.append(f"line {n}: empty HELP for {name}")
            if name in seen_samples:
                problems.append(f"line {n}: {kind} for {name} after its samples")
            continue
        if line.startswith("#"):
            continue
        sample = re.split(r"[{ ]", line, maxsplit=1)[0]
        family = next((f for f in typed if sample == f or (typed[f] == "histogram" and sample in (f + "_bucket", f + "_sum", f + "_count"))), None)
        if family is None:
            problems.append(f"line {n}: sample {sample} without a TYPE line before it")
            continue
        if family not in helped:
            problems.append(f"line {n}: sample {sample} without a HELP line before it")
        seen_samples.add(family)
    return problems


def family_problems(families):
    problems = []
    series = set()
    for f in families:
        if f.type == "unknown":
            problems.append(f"{f.name}: no TYPE")
        if NON_BASE_UNITS.search(f.name):
            problems.append(f"{f.name}: unit not in base units (seconds, bytes)")
        for s in f.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in series:
                problems.append(f"{s.name}{s.labels}: the same series twice")
            series.add(key)
            for label, value in s.labels.items():
                if not SNAKE.match(label):
                    problems.append(f"{s.name}: label name {label} is not snake_case")
                if (s.name, label) not in VERBATIM_LABELS and CAMEL.search(value):
                    problems.append(f'{s.name}{{{label}="{value}"}}: label value in camelCase (snake_case expected)')
            if f.type == "counter" and not s.value >= 0:
                problems.append(f"{s.name}{s.labels}: counter value {s.value} below 0")
            if f.type == "gauge" and f.name.endswith("_info") and s.value != 1:
                problems.append(f"{s.name}{s.labels}: info gauge is {s.value}, not 1")
        if f.type == "histogram":
            problems += histogram_problems(f.name, f.samples)
    return problems


def histogram_problems(name, samples):
    problems = []
    groups = {}
    for s in samples:
        rest = tuple(sorted((k, v) for k, v in s.labels.items() if k != "le"))
        groups.setdefault(rest, {"buckets": [], "count": None})
        if s.name == name + "_bucket":
            groups[rest]["buckets"].append((float(s.labels["le"]), s.value))
        elif s.name == name + "_count":
            groups[rest]["count"] = s.value
    for rest, g in groups.items():
        values = [v for _, v in g["buckets"]]
        if values != sorted(values):
            problems.append(f"{name}{dict(rest)}: buckets not cumulative")
        if not g["buckets"] or g["buckets"][-1][0] != float("inf"):
            problems.append(f"{name}{dict(rest)}: no +Inf bucket last")
        elif g["count"] != g["buckets"][-1][1]:
            problems.append(f"{name}{dict(rest)}: _count {g['count']} differs from the +Inf bucket {g['buckets'][-1][1]}")
    return problems


def main():
    text = sys.stdin.read()
    try:
        families = list(text_string_to_metric_families(text))
    except Exception as err:  # the parser raises ValueError (and others) on a malformed line
        print(f"the Prometheus parser rejected the exposition: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    problems = raw_problems(text) + family_problems(families)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    out = {
        "families": {f.name: f.type for f in families},
        # JSON has no Infinity or NaN: those values go as the strings Prometheus writes.
        "samples": [[s.name, s.labels, s.value if math.isfinite(s.value) else str(s.value)] for f in families for s in f.samples],
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
