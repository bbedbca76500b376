"""The calls' checks and order without networkx (``cfg.verify_calls``,
``cfg.call_order``) against networkx's (``cfg.check_calls`` and the
topological sort of its graph), over random call graphs: the same order,
and the same error for every unsound one (a missing label, recursion,
calls nested deeper than validity.py allows)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from xlate.bytecode.tables import ShaderKind, ShaderVersion
from xlate.errors import StructureError
from xlate.ir import cfg
from xlate.ir.ops import Code, Op
from xlate.ir.program import Function, Program


def _program(calls: dict[str, list[str]]) -> Program:
    functions = {}
    for origin, (name, callees) in enumerate(calls.items()):
        body = [Op(Code.CALL, None, (), (c,), None, -1) for c in callees] + [Op(Code.RETURN)]
        functions[name] = Function(name, body)
    return Program(ShaderVersion(ShaderKind.VERTEX, 3, 0), functions, [], [], ())


def _networkx_graph(program: Program) -> nx.DiGraph:
    """The call graph built here, edge by edge as each CALL comes (a later
    CALL of the same callee replaces the edge's op), independently of
    ``cfg._call_edges``, from which ``cfg.call_graph`` is built."""
    graph = nx.DiGraph()
    graph.add_nodes_from(program.functions)
    for fn in program.functions.values():
        for op in fn.body:
            if op.code is Code.CALL:
                graph.add_edge(fn.name, op.imm[0], op=op)
    return graph


def _networkx_order(program: Program) -> list[str]:
    if cfg.check_calls(program) is None:  # (raises for unsound calls)
        return ["main"]
    graph = _networkx_graph(program)
    reachable = nx.descendants(graph, "main") | {"main"}
    return list(reversed(list(nx.topological_sort(graph.subgraph(reachable)))))


def _outcome(fn, program):
    try:
        return "ok", fn(program)
    except StructureError as exc:
        return "error", str(exc)


def _random_calls(rng: random.Random) -> dict[str, list[str]]:
    n = rng.randint(1, 9)
    names = ["main"] + [f"l{i}" for i in range(n - 1)]
    acyclic = rng.random() < 0.7
    calls = {}
    for i, name in enumerate(names):
        pool = names[i + 1:] if acyclic else names
        calls[name] = [rng.choice(pool) for _ in range(rng.randint(0, 3))] if pool else []
        if rng.random() < 0.05:
            calls[name].append("l99")  # a label nobody defines
    rng.shuffle(order := names[1:])
    return {"main": calls["main"], **{name: calls[name] for name in order}}


@pytest.mark.parametrize("seed", range(40))
def test_same_order_and_errors_as_networkx(seed):
    rng = random.Random(seed)
    for _ in range(50):
        program = _program(_random_calls(rng))
        graph, expected_graph = cfg.call_graph(program), _networkx_graph(program)
        assert list(graph.nodes) == list(expected_graph.nodes)
        assert list(graph.edges(data="op")) == list(expected_graph.edges(data="op"))
        assert _outcome(cfg.call_order, program) == _outcome(_networkx_order, program)
        expected = _outcome(cfg.check_calls, program)
        seen = _outcome(cfg.verify_calls, program)
        assert seen[0] == expected[0] and (seen[0] == "ok" or seen == expected)


def test_the_depth_limit_and_unreachable_functions():
    chain = {"main": ["l0"], "l0": ["l1"], "l1": ["l2"], "l2": ["l3"], "l3": [], "l9": ["l9"]}
    program = _program(chain)
    with pytest.raises(StructureError, match="recursive"):
        cfg.verify_calls(program)  # recursion in a function nothing calls is refused too
    del chain["l9"]
    assert cfg.call_order(_program(chain)) == ["l3", "l2", "l1", "l0", "main"]
    chain["l3"] = ["l4"]
    chain["l4"] = []
    expected = _outcome(cfg.check_calls, _program(chain))
    assert expected[0] == "error" and "nested 5 deep" in expected[1]
    assert _outcome(cfg.verify_calls, _program(chain)) == expected
    assert _outcome(cfg.call_order, _program(chain)) == expected
