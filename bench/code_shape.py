#!/usr/bin/env python3
"""The shape of the source: files, function lengths, `pub(crate)` items and file loops.

    python3 bench/code_shape.py [SRC_DIR]

Prints the figures the structure reviews compare against hyperfine, ripgrep, oha and
latte: how many `.rs` files, the median / 90th percentile / longest function in lines
(from its `fn` line to its closing brace, test code included), how many `pub(crate)`
items, and the dependency loops between files of one folder (a file's non-test code naming
a sibling through `super::x` or `crate::folder::x`). Read-only; lexes Rust just enough to skip
strings, characters and comments when it counts braces.
"""

import re
import statistics
import sys
from pathlib import Path


def code_only(text):
    """The text with comments, strings and char literals blanked, lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    out.append("\n" if text[i] == "\n" else "")
                    i += 1
        elif re.match(r'b?r(#*)"', text[i:i + 40]) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'b?r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append("\n" * text.count("\n", i, j) + '""')
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j) + '""')
            i = j + 1
        elif c == "'" and re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x..'", text[i:i + 12]):
            m = re.match(r"'(\\.|[^\\'])'|'\\u\{[0-9a-fA-F]+\}'|'\\x..'", text[i:])
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_lengths(code):
    """Lines of every `fn` with a body."""
    lengths = []
    for m in re.finditer(r"\bfn\s+\w+", code):
        j, depth = m.end(), 0
        while j < len(code) and code[j] not in "{;":
            # Skip generic and argument lists, which hold no braces in this code base.
            j += 1
        if j >= len(code) or code[j] == ";":
            continue
        start = j
        while j < len(code):
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        lengths.append(code.count("\n", m.start(), j) + 1)
    return lengths


def sibling_edges(src):
    """folder → {file → siblings it names}."""
    folders = {}
    for path in src.rglob("*.rs"):
        folder = path.parent
        if folder == src:
            continue
        name = "mod" if path.name == "mod.rs" else path.stem
        # Test code may name any sibling: only what ships counts.
        code = code_only(path.read_text()).split("#[cfg(test)]")[0]
        folders.setdefault(folder, {})[name] = code
    edges = {}
    for folder, files in folders.items():
        module = ".".join(folder.relative_to(src).parts).replace(".", "::")
        graph = {}
        for name, code in files.items():
            named = set()
            for m in re.finditer(r"\bsuper::(\w+)|\bcrate::" + re.escape(module) + r"::(\w+)", code):
                other = m.group(1) or m.group(2)
                if other in files and other != name:
                    named.add(other)
            if name != "mod":
                # A child's `super::Item` names its folder's mod.rs.
                for m in re.finditer(r"\bsuper::(\w+)|\bcrate::" + re.escape(module) + r"::(\w+)", code):
                    other = m.group(1) or m.group(2)
                    if other not in files:
                        named.add("mod")
                named |= {o for o in re.findall(r"use\s+super::\{([^}]*)\}", code) for o in re.findall(r"\w+", o) if o in files}
            else:
                named |= {o for o in re.findall(r"\bself::(\w+)", code) if o in files}
                # mod.rs declares its children; a child's items it uses count as an edge.
                named |= {o for o in re.findall(r"\b(\w+)::\w+", code) if o in files and o != "mod"}
            graph[name] = named
        edges[str(folder.relative_to(src))] = graph
    return edges


def cycles(graph):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "src")
    files = sorted(src.rglob("*.rs"))
    lengths, pub_crate = [], 0
    for path in files:
        code = code_only(path.read_text())
        lengths += function_lengths(code)
        pub_crate += len(re.findall(r"\bpub\(crate\)", code))
    print(f"files                {len(files)}")
    print(f"lines                {sum(p.read_text().count(chr(10)) for p in files)}")
    print(f"functions            {len(lengths)}")
    print(f"fn lines median/p90/max  {statistics.median(lengths):.0f} / "
          f"{percentile(lengths, 0.9)} / {max(lengths)}")
    print(f"pub(crate)           {pub_crate}")
    loops = [(folder, c) for folder, graph in sorted(sibling_edges(src).items()) for c in cycles(graph)]
    print(f"file loops in a folder  {len(loops)}")
    for folder, component in loops:
        print(f"  {folder}: {' <-> '.join(component)}")


if __name__ == "__main__":
    main()
