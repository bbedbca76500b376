"""Control-flow graphs (networkx) over the structured op lists.

A function's body is split into basic blocks at every control op; the CFG
has one node per block plus ``entry`` and ``exit`` nodes, and an edge for
every way control can pass.  The call graph has one node per function.
networkx then answers what graphs are good for: reachability, dominators,
cycles (recursion), and drawing (``to_dot``).

networkx is imported on first use (``_nx``), not with this module: importing
it costs about 0.1 s, more than the rest of the translator's import.  A
translation needs no graph: the checks and the order of a shader's calls
(``verify_calls``, ``call_order``) are plain walks, and networkx is only
asked to report calls that are not sound (the messages ``check_calls`` has
always given); a report draws CFGs with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING

from ..bytecode.validity import Nest, nesting_limits, nesting_problem
from ..errors import StructureError
from .ops import Code, Op
from .program import Function, Program

if TYPE_CHECKING:
    import networkx as nx


def _nx():
    """The networkx module, imported on first use (see the module docstring)."""
    import networkx

    return networkx

ENTRY = "entry"
EXIT = "exit"


@dataclass(eq=False)
class Block:
    index: int
    ops: list[Op] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<Block {self.index}: {len(self.ops)} ops>"


def build_cfg(fn: Function) -> nx.DiGraph:
    """Basic blocks of ``fn`` and the edges between them.

    Node keys are block indices (ints) plus ENTRY and EXIT; each int node has
    a ``block`` attribute.  Assumes the body is well nested (the builder
    guarantees it; ``check_structure`` verifies it).
    """
    nx = _nx()
    graph = nx.DiGraph()
    blocks: list[Block] = []

    def new_block() -> Block:
        b = Block(len(blocks))
        blocks.append(b)
        graph.add_node(b.index, block=b)
        return b

    graph.add_node(ENTRY)
    graph.add_node(EXIT)
    current: Block | None = new_block()
    graph.add_edge(ENTRY, current.index)
    # stack entries: ("if", cond_block, then_end or None) / ("loop", header, breaks)
    stack: list[dict] = []

    def link(a: Block | None, b: Block) -> None:
        if a is not None:
            graph.add_edge(a.index, b.index)

    for op in fn.body:
        code = op.code
        if code is Code.IF:
            current.ops.append(op)
            stack.append({"kind": "if", "head": current, "then_end": None, "has_else": False})
            body = new_block()
            link(current, body)
            current = body
        elif code is Code.ELSE:
            frame = stack[-1]
            frame["then_end"] = current
            frame["has_else"] = True
            body = new_block()
            link(frame["head"], body)
            current = body
        elif code is Code.ENDIF:
            frame = stack.pop()
            join = new_block()
            if frame["has_else"]:
                link(frame["then_end"], join)
            else:
                link(frame["head"], join)
            link(current, join)
            current = join
        elif code is Code.LOOP:
            header = new_block()
            link(current, header)
            stack.append({"kind": "loop", "head": header, "breaks": []})
            current = header
        elif code is Code.ENDLOOP:
            frame = stack.pop()
            link(current, frame["head"])  # back edge
            after = new_block()
            for b in frame["breaks"]:
                link(b, after)
            current = after
        elif code is Code.BREAK:
            current.ops.append(op)
            loop = next(f for f in reversed(stack) if f["kind"] == "loop")
            loop["breaks"].append(current)
            current = new_block()  # unreachable until the next join
        elif code is Code.RETURN:
            current.ops.append(op)
            graph.add_edge(current.index, EXIT)
            current = new_block()
        else:
            current.ops.append(op)
    graph.add_edge(current.index, EXIT)
    return graph


def reachable_blocks(graph: nx.DiGraph) -> set:
    return _nx().descendants(graph, ENTRY) | {ENTRY}


def dominators(graph: nx.DiGraph) -> dict:
    return _nx().immediate_dominators(graph, ENTRY)


def check_structure(fn: Function, program: Program | None = None, *, error=None) -> None:
    """Nesting of IF/ELSE/ENDIF and LOOP/ENDLOOP (one ELSE per IF), BREAK
    inside loops, loops no deeper than validity.py allows (the decoder
    refuses deeper ones; no pass adds a loop).  ``error(op, reason)`` makes the exception to raise; by
    default a StructureError naming the D3D instruction (the validator passes
    its own, since there a bad nesting is a pass bug, not bad input)."""
    fail = error or (lambda op, reason: _error(program, op, reason))
    stack: list[Code] = []  # IF, ELSE (an IF past its ELSE) or LOOP
    loops = 0
    loop_limit = nesting_limits(program.version).loop if program is not None else None
    for op in fn.body:
        code = op.code
        if code in (Code.IF, Code.LOOP):
            stack.append(code)
            loops += code is Code.LOOP
            if loop_limit is not None and loops > loop_limit:
                raise fail(op, nesting_problem(Nest.LOOP, loops, program.version))
        elif code is Code.ELSE:
            if not stack or stack[-1] is not Code.IF:
                raise fail(op, "'else' without an open 'if'")
            stack[-1] = Code.ELSE
        elif code is Code.ENDIF:
            if not stack or stack.pop() not in (Code.IF, Code.ELSE):
                raise fail(op, "'endif' without an open 'if'")
        elif code is Code.ENDLOOP:
            if not stack or stack.pop() is not Code.LOOP:
                raise fail(op, "'endloop' without an open loop")
            loops -= 1
        elif code is Code.BREAK and not loops:
            raise fail(op, "'break' outside a loop")
    if stack:
        raise fail(fn.body[-1] if fn.body else None, f"function {fn.name} ends with {len(stack)} open block(s)")


def call_graph(program: Program) -> nx.DiGraph:
    """Caller -> callee edges, each with the ``op`` of its last CALL
    (``_call_edges``, in the order of the first calls)."""
    graph = _nx().DiGraph()
    graph.add_nodes_from(program.functions)
    for caller, callees in _call_edges(program).items():
        for callee, op in callees.items():
            graph.add_edge(caller, callee, op=op)
    return graph


def _has_calls(program: Program) -> bool:
    # ``in`` over the codes runs in C: this is on every translation's path,
    # and most shaders have no CALL, hence no call graph worth building.
    code = attrgetter("code")
    return any(Code.CALL in map(code, fn.body) for fn in program.functions.values())


def check_calls(program: Program) -> nx.DiGraph | None:
    """Every CALL names an existing label; no recursion.  Returns the call
    graph, or None when there is no CALL at all (most shaders: nothing to
    check, and no graph is built)."""
    if not _has_calls(program):
        return None
    nx = _nx()
    graph = call_graph(program)
    for caller, callee, data in graph.edges(data=True):
        if callee not in program.functions:
            raise _error(program, data["op"], f"call to label {callee} which is never defined")
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        _check_call_depth(program, graph)
        return graph
    op = graph.edges[cycle[0][0], cycle[0][1]]["op"]
    path = " -> ".join([cycle[0][0]] + [e[1] for e in cycle])
    raise _error(program, op, f"recursive calls ({path}); D3D9 subroutines cannot recurse")


def _check_call_depth(program: Program, graph: nx.DiGraph) -> None:
    """The longest chain of calls from main stays within validity.py's call
    nesting limit (linear: one pass over the acyclic graph)."""
    if "main" not in graph:
        return
    nx = _nx()
    depth: dict[str, int] = {}
    via: dict[str, object] = {}
    reachable = nx.descendants(graph, "main") | {"main"}
    for name in nx.topological_sort(graph.subgraph(reachable)):
        depth.setdefault(name, 0)
        for _, callee, data in graph.out_edges(name, data=True):
            if depth[name] + 1 > depth.get(callee, -1):
                depth[callee] = depth[name] + 1
                via[callee] = data["op"]
    deepest = max(depth, key=depth.get)
    problem = nesting_problem(Nest.CALL, depth[deepest], program.version)
    if problem:
        raise _error(program, via.get(deepest), problem)


def call_order(program: Program) -> list[str]:
    """Functions callees-first, the order a GLSL file must define them.

    Raises what ``check_calls`` raises.  A program whose calls are sound is
    ordered without networkx (``_sound_calls``, ``_callees_first``): the
    backends call this for every shader with a CALL, and importing networkx
    would cost a batch conversion's worker 0.1 s for its first one."""
    if not _has_calls(program):
        return ["main"]
    edges = _sound_calls(program)
    if edges is not None:
        return _callees_first(edges)
    graph = check_calls(program)  # raises: the same checks, with networkx's report
    nx = _nx()
    reachable = nx.descendants(graph, "main") | {"main"}
    return list(reversed(list(nx.topological_sort(graph.subgraph(reachable)))))


def verify_calls(program: Program) -> None:
    """What ``check_calls`` checks, without building a networkx graph when
    the calls are sound (the common case; its report when they are not)."""
    if _has_calls(program) and _sound_calls(program) is None:
        check_calls(program)


def _call_edges(program: Program) -> dict[str, dict[str, Op]]:
    """caller -> {callee: its last CALL of it}, first calls first: the
    edges of ``call_graph``, which is built from them."""
    CALL = Code.CALL
    edges: dict[str, dict[str, Op]] = {}
    for fn in program.functions.values():
        out = edges[fn.name] = {}
        for op in fn.body:
            if op.code is CALL:
                out[op.imm[0]] = op
    return edges


def _sound_calls(program: Program) -> dict[str, dict[str, Op]] | None:
    """``_call_edges`` when every call names a function, none recurses and
    main's calls nest within validity.py's limit; None when ``check_calls``
    would raise (it is left to say why, as it always has)."""
    edges = _call_edges(program)
    for callees in edges.values():
        for callee in callees:
            if callee not in edges:
                return None
    # Depth-first, iteratively (a hostile shader may chain many labels):
    # a call back into a function still on the stack is recursion;
    # ``height`` is the longest chain of calls below a finished function.
    height: dict[str, int] = {}
    for root in edges:
        if root in height:
            continue
        stack = [(root, iter(edges[root]))]
        on_stack = {root}
        while stack:
            name, it = stack[-1]
            for callee in it:
                if callee in on_stack:
                    return None
                if callee not in height:
                    stack.append((callee, iter(edges[callee])))
                    on_stack.add(callee)
                    break
            else:
                stack.pop()
                on_stack.discard(name)
                height[name] = max([height[c] + 1 for c in edges[name]], default=0)
    if "main" in edges and nesting_problem(Nest.CALL, height["main"], program.version):
        return None
    return edges


def _callees_first(edges: dict[str, dict[str, Op]]) -> list[str]:
    """The functions main reaches, callees first: exactly the reverse of
    networkx's ``topological_sort`` of the call graph's subgraph of them
    (Kahn's walk by generations from main, which alone has no caller there,
    each function's callees in the order of their first call)."""
    reachable = {"main"}
    todo = ["main"]
    while todo:
        for callee in edges[todo.pop()]:
            if callee not in reachable:
                reachable.add(callee)
                todo.append(callee)
    callers = dict.fromkeys(reachable, 0)
    for name in reachable:
        for callee in edges[name]:
            callers[callee] += 1
    order: list[str] = []
    generation = ["main"]
    while generation:
        order += generation
        following = []
        for name in generation:
            for callee in edges[name]:
                callers[callee] -= 1
                if not callers[callee]:
                    following.append(callee)
        generation = following
    order.reverse()
    return order


def _error(program: Program, op: Op | None, reason: str) -> StructureError:
    offset = -1
    label = ""
    if op is not None and 0 <= op.origin < len(program.instructions):
        inst = program.instructions[op.origin]
        offset = inst.offset
        label = f"'{inst.info.mnemonic}' (instruction {op.origin + 1}): "
    return StructureError(offset, label + reason)


def to_dot(graph: nx.DiGraph) -> str:
    """Graphviz text of a CFG, for ``xlate`` debugging output."""
    lines = ["digraph cfg {"]
    for node, data in graph.nodes(data=True):
        block = data.get("block")
        label = str(node) if block is None else f"B{node}\\n" + "\\n".join(op.code.value for op in block.ops[:8])
        lines.append(f'  "{node}" [label="{label}"];')
    for a, b in graph.edges():
        lines.append(f'  "{a}" -> "{b}";')
    lines.append("}")
    return "\n".join(lines) + "\n"
