"""The control-flow graph of a lifted program, drawn as inline SVG.

The graph is ``xlate.ir.cfg.build_cfg``'s (networkx); the drawing is a
plain layered layout (after Sugiyama): loops' back edges are set aside,
every block gets the layer of its longest path from the entry, edges that
skip layers pass through invisible waypoints, the order within each layer
is improved by a few barycentre sweeps, and each block is placed near the
mean of its predecessors.  Back edges are drawn as dashed arcs on the
right.  No external tool, no external asset: the SVG is styled by the
report page's CSS classes (``cfg-*``).

Each block is labelled with the D3D instructions it came from and carries
their listing lines in ``data-lines``, so the page can highlight them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

import networkx as nx

from ..ir.cfg import ENTRY, EXIT, build_cfg

CHAR_W = 6.6  # px per character of the 11px monospace label font
LINE_H = 14
PAD = 6
LAYER_GAP = 34
NODE_GAP = 22
MAX_LABEL_LINES = 6
MAX_LABEL_CHARS = 34
SWEEPS = 4


@dataclass
class _Node:
    key: object
    lines: list[str]
    listing: list[int] = field(default_factory=list)
    dummy: bool = False
    dead: bool = False
    layer: int = 0
    order: float = 0.0
    x: float = 0.0  # centre
    y: float = 0.0  # top
    w: float = 0.0
    h: float = 0.0


def _clean(text: str) -> str:
    """Label text: one line, printable, short, then escaped for SVG."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    if len(text) > MAX_LABEL_CHARS:
        text = text[: MAX_LABEL_CHARS - 1] + "\u2026"
    return escape(text, quote=True)


def _labels(graph: nx.DiGraph, where: list[int], texts: list[str]) -> dict[object, _Node]:
    reachable = nx.descendants(graph, ENTRY) | {ENTRY}
    nodes: dict[object, _Node] = {}
    for key, data in graph.nodes(data=True):
        if key in (ENTRY, EXIT):
            nodes[key] = _Node(key, [key])
            continue
        ops = data["block"].ops
        origins = sorted({op.origin for op in ops if 0 <= op.origin < len(texts)})
        if not origins and key not in reachable:
            continue  # the empty block the CFG opens after a break or ret: nothing to draw
        lines = [f"B{key}"]
        shown = [texts[o] for o in origins[:MAX_LABEL_LINES]]
        lines += shown if shown else ["(empty)"]
        if len(origins) > MAX_LABEL_LINES:
            lines.append(f"\u2026 {len(origins) - MAX_LABEL_LINES} more")
        nodes[key] = _Node(key, lines, [where[o] for o in origins if o < len(where)], dead=key not in reachable)
    return nodes


def _back_edges(graph: nx.DiGraph, keep: dict) -> set[tuple]:
    """Edges closing a cycle in a depth-first walk from the entry (the loops' back edges)."""
    back: set[tuple] = set()
    state: dict[object, int] = {}  # 1 on the stack, 2 done
    roots = [ENTRY] + [n for n in keep if n != ENTRY]
    for root in roots:
        if root in state:
            continue
        stack = [(root, iter([s for s in graph.successors(root) if s in keep]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                back.add((node, nxt))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter([s for s in graph.successors(nxt) if s in keep])))
    return back


def layout(graph: nx.DiGraph, nodes: dict[object, _Node]) -> tuple[list[_Node], list[list[_Node]], list[tuple[_Node, _Node]], float, float]:
    """Place ``nodes``; returns them (with waypoints), the forward edges as
    waypoint chains, the back edges, and the drawing's width and height."""
    edges = [(a, b) for a, b in graph.edges() if a in nodes and b in nodes]
    back = _back_edges(graph, nodes)
    forward = [(a, b) for a, b in edges if (a, b) not in back and a != b]
    dag = nx.DiGraph()
    dag.add_nodes_from(nodes)
    dag.add_edges_from(forward)
    for key in nx.topological_sort(dag):
        preds = list(dag.predecessors(key))
        nodes[key].layer = max((nodes[p].layer + 1 for p in preds), default=0)
    if EXIT in nodes:  # the exit last, below everything
        nodes[EXIT].layer = max(n.layer for n in nodes.values() if n.key != EXIT) + 1 if len(nodes) > 1 else 0

    # waypoints for edges that skip layers
    every = list(nodes.values())
    chains: list[list[_Node]] = []
    up: dict[int, list[_Node]] = {}  # id(node) -> its upper neighbours (for the barycentres)
    down: dict[int, list[_Node]] = {}
    for a, b in forward:
        na, nb = nodes[a], nodes[b]
        chain = [na]
        for layer in range(na.layer + 1, nb.layer):
            d = _Node(None, [], dummy=True, layer=layer)
            every.append(d)
            chain.append(d)
        chain.append(nb)
        for u, v in zip(chain, chain[1:]):
            down.setdefault(id(u), []).append(v)
            up.setdefault(id(v), []).append(u)
        chains.append(chain)

    depth = max((n.layer for n in every), default=0) + 1
    layers: list[list[_Node]] = [[] for _ in range(depth)]
    for n in every:
        layers[n.layer].append(n)
    for n in every:
        n.w = 8.0 if n.dummy else max(len(t) for t in n.lines) * CHAR_W + 2 * PAD
        n.h = 0.0 if n.dummy else len(n.lines) * LINE_H + 2 * PAD
    for row in layers:
        for i, n in enumerate(row):
            n.order = i

    def sweep(rows, neighbours):
        for row in rows:
            for n in row:
                near = neighbours.get(id(n))
                if near:
                    n.order = sum(m.order for m in near) / len(near)
            row.sort(key=lambda n: n.order)
            for i, n in enumerate(row):
                n.order = i

    for _ in range(SWEEPS):
        sweep(layers[1:], up)
        sweep(layers[-2::-1], down)

    # x: each node near the mean of its upper neighbours, no overlaps
    for index, row in enumerate(layers):
        want = []
        for n in row:
            near = up.get(id(n)) if index else None
            want.append(sum(m.x for m in near) / len(near) if near else None)
        x = 0.0
        placed = []
        for n, w in zip(row, want):
            left = x + n.w / 2
            centre = max(left, w) if w is not None else left
            placed.append(centre)
            x = centre + n.w / 2 + NODE_GAP
        wanted = [(w - p) for w, p in zip(want, placed) if w is not None]
        shift = sum(wanted) / len(wanted) if wanted else 0.0
        for n, p in zip(row, placed):
            n.x = p + shift
    left = min((n.x - n.w / 2 for n in every), default=0.0)
    right = max((n.x + n.w / 2 for n in every), default=0.0)
    y = PAD
    for row in layers:
        tall = max((n.h for n in row), default=0.0)
        for n in row:
            n.x += PAD - left
            n.y = y + (tall - n.h) / 2
        y += tall + LAYER_GAP
    width = right - left + 2 * PAD + (24 + 8 * len(back) if back else 0)
    return every, chains, [(nodes[a], nodes[b]) for a, b in back], width, y - LAYER_GAP + PAD


def _arrow(x: float, y: float, dx: float, dy: float) -> str:
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / length, dy / length
    px, py = -uy, ux
    pts = [(x, y), (x - 7 * ux + 3.5 * px, y - 7 * uy + 3.5 * py), (x - 7 * ux - 3.5 * px, y - 7 * uy - 3.5 * py)]
    return '<polygon class="cfg-head" points="' + " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>'


def function_svg(name: str, graph: nx.DiGraph, where: list[int], texts: list[str]) -> str:
    """One function's CFG as an ``<svg>`` element."""
    nodes = _labels(graph, where, texts)
    every, chains, back, width, height = layout(graph, nodes)
    title_h = LINE_H + PAD
    out = [f'<svg class="cfg" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height + title_h:.0f}" '
           f'viewBox="0 {-title_h:.0f} {width:.0f} {height + title_h:.0f}" role="img">',
           f'<text class="cfg-title" x="{PAD}" y="{-PAD:.0f}">{_clean(name)}</text>']
    for chain in chains:
        pts = []
        for i, n in enumerate(chain):
            if i:
                pts.append((n.x, n.y))
            if i < len(chain) - 1:
                pts.append((n.x, n.y + n.h))
        path = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        (x0, y0), (x1, y1) = pts[-2], pts[-1]
        out.append(f'<path class="cfg-edge" d="{path}"/>' + _arrow(x1, y1, x1 - x0, y1 - y0))
    for k, (a, b) in enumerate(sorted(back, key=lambda e: e[0].layer - e[1].layer)):
        ax, ay = a.x + a.w / 2, a.y + a.h / 2
        bx, by = b.x + b.w / 2, b.y + b.h / 2
        # out past every block of the layers the loop spans, inner loops nearer
        low, high = sorted((a.layer, b.layer))
        reach = max(n.x + n.w / 2 for n in every if low <= n.layer <= high) + 14 + 8 * k
        out.append(f'<path class="cfg-back" d="M{ax:.1f},{ay:.1f} C{reach:.1f},{ay:.1f} {reach:.1f},{by:.1f} {bx:.1f},{by:.1f}"/>'
                   + _arrow(bx, by, bx - reach, 0.0))
    for n in every:
        if n.dummy:
            continue
        kind = "cfg-end" if n.key in (ENTRY, EXIT) else "cfg-dead" if n.dead else "cfg-block"
        lines = " ".join(str(i) for i in n.listing)
        out.append(f'<g class="{kind}" data-lines="{lines}">'
                   f'<rect x="{n.x - n.w / 2:.1f}" y="{n.y:.1f}" width="{n.w:.1f}" height="{n.h:.1f}" rx="4"/>')
        for i, text in enumerate(n.lines):
            cls = ' class="cfg-name"' if i == 0 else ""
            out.append(f'<text{cls} x="{n.x - n.w / 2 + PAD:.1f}" y="{n.y + PAD + (i + 1) * LINE_H - 3:.1f}">{_clean(text)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def program_svg(program, where: list[int], texts: list[str]) -> str:
    """Every function of ``program`` (main first, as lifted), side by side."""
    parts = []
    for name, fn in program.functions.items():
        parts.append(function_svg(name, build_cfg(fn), where, texts))
    return "".join(parts)
