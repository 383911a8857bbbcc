#!/usr/bin/env python3
"""The library's files and the command's call each other one way only: lie <- integrators
<- problems <- planner, and inside planner/ draw/ (the SVG writer) <- the planning
(cubic/, car/, holonomic/, nonholonomic/, vakonomic/ and the top-level files) <- plot/ <-
study/ <- api/ (the public objects and the JSON text front end for foreign callers) <-
cli/ (the command, which may call everything and which nothing calls); no group of files calls each other in a circle. Reads the object
files of a build with nm: a file's undefined symbols are the calls it makes, the file
defining one is the file it calls. Prints each circle and each call against the layers;
exits 1 if any.

    tests/check_layering.py BUILD_DIR OBJECT...   (the library's and the command's objects,
                                                   under BUILD_DIR)
"""
import collections
import os
import subprocess
import sys

LAYERS = ["lie", "integrators", "problems", "planner"]
# The roles inside planner/, lowest first: a file is of its sub-folder's role, or of the
# planning when its sub-folder is not named here. draw/ is the SVG writer every picture
# uses (a family draws its own figure with it); plot/ turns results into pictures; api/
# is the library's public face (objects, and JSON text for foreign callers).
PLANNER_ROLES = ["draw", "planning", "plot", "study", "api", "cli"]


def layer(path):
    """(layer, role inside planner/) of a file, from its path under the build folder."""
    parts = path.split(os.sep)
    top = LAYERS.index(parts[0])
    if parts[0] != "planner":
        return (top, 0)
    name = parts[1] if len(parts) > 2 else "planning"
    return (top, PLANNER_ROLES.index(name) if name in PLANNER_ROLES else PLANNER_ROLES.index("planning"))


def call_graph(objects):
    defined, calls = {}, collections.defaultdict(set)
    for obj in objects:
        for line in subprocess.check_output(["nm", obj], text=True).splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDRB":
                defined[parts[2]] = obj
            elif len(parts) == 2 and parts[0] == "U":
                calls[obj].add(parts[1])
    graph = {obj: {defined[s] for s in calls[obj] if s in defined and defined[s] != obj} for obj in objects}
    return graph


def circles(graph):
    """Strongly connected components of more than one file (Tarjan, iteratively)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def main():
    build, objects = sys.argv[1], sys.argv[2:]
    graph = call_graph(objects)
    rank = {obj: layer(os.path.relpath(obj, build)) for obj in objects}
    against = sorted((a, b) for a in graph for b in graph[a] if rank[a] < rank[b])
    found = circles(graph)
    for component in found:
        print("files calling each other in a circle:", " ".join(os.path.relpath(c, build) for c in component))
    for a, b in against:
        print("call against the layers:", os.path.relpath(a, build), "->", os.path.relpath(b, build))
    print(f"layering: {len(graph)} files, {len(found)} circles, {len(against)} calls against the layers")
    return 1 if found or against else 0


if __name__ == "__main__":
    sys.exit(main())
