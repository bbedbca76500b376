"""Wine's visual tests (peer-corpus/wine/visual_cases.jsonl) through xlate on llvmpipe.

Every case is one draw whose probes hold the colours real Windows drivers
produced.  A probe passes when the read-back colour, quantised as a UNORM8
target stores it, is within ``tolerance`` per channel of ``color`` or of an
``also_accepted`` colour; ``broken_accepted`` colours (broken drivers only)
never pass, but a failure that matches one is reported as such.  The
fixed-function parts around the shaders are in ``xlate.verify.wine_cases``.

KNOWN_FAILURES lists the cases expected to fail, with the reason; the test of
a listed case fails when it passes (so the table stays true), and an unlisted
case fails when it fails.  Out-of-scope cases are skipped with their reason.
``test_summary`` prints passed / failed / out of scope per Wine test function.
"""

from __future__ import annotations

import collections

import pytest

from xlate.verify import wine_cases as wc

KNOWN_FAILURES: dict[str, str] = {
}

_MISSING = wc.corpus_missing()
_CASES = {} if _MISSING else {c.id: c for c in wc.load_cases()}
_RESULTS: dict[str, wc.CaseResult] = {}


def _gl_or_skip():
    from xlate.verify.gl import GLUnavailable, context

    try:
        context()
    except GLUnavailable as exc:
        pytest.skip(str(exc))


def _result(case_id: str) -> wc.CaseResult:
    if case_id not in _RESULTS:
        _RESULTS[case_id] = wc.run_case(_CASES[case_id])
    return _RESULTS[case_id]


def test_corpus_present():
    if _MISSING:
        pytest.skip(_MISSING)
    assert len(_CASES) > 500


def test_known_failures_are_cases():
    if _MISSING:
        pytest.skip(_MISSING)
    unknown = sorted(set(KNOWN_FAILURES) - set(_CASES))
    assert not unknown, f"KNOWN_FAILURES names cases that do not exist: {unknown}"
    scoped_out = sorted(k for k in KNOWN_FAILURES if wc.out_of_scope(_CASES[k]))
    assert not scoped_out, f"KNOWN_FAILURES names out-of-scope cases: {scoped_out}"


# Out-of-scope cases (fixed-function lighting feeding the pixel shader) are
# not test items; test_summary counts them with their reasons.
_IN_SCOPE = sorted(k for k, c in _CASES.items() if not wc.out_of_scope(c))
# The cases drawn with fog or the alpha test (xlate/drawstate.py): test_case
# draws them with the state baked in, test_draw_state_dynamic again with the
# state as uniforms set per draw.
_DRAW_STATE = sorted(k for k in _IN_SCOPE if wc.case_draw_state(_CASES[k]) is not None)


def test_out_of_scope_is_only_lighting():
    if _MISSING:
        pytest.skip(_MISSING)
    reasons = {wc.out_of_scope(c) for c in _CASES.values()} - {None, ""}
    assert all("lighting" in r.lower() for r in reasons), reasons


def test_fog_and_alpha_test_cases_are_in_scope():
    if _MISSING:
        pytest.skip(_MISSING)
    functions = collections.Counter(_CASES[k].function for k in _DRAW_STATE)
    assert functions == {"fog_with_shader_test": 365, "alphatest_test": 18}, functions


def test_draw_state_cases_need_the_state():
    """The control: without the render state most of these cases fail (the
    probes see fog and discards), so their passing is the state's doing."""
    if _MISSING:
        pytest.skip(_MISSING)
    _gl_or_skip()
    failed = 0
    chosen = _DRAW_STATE[::8]
    for case_id in chosen:
        case = _CASES[case_id]
        vs, ps, draw = wc.build_draw(case)
        bare = {"vs": wc._translate(case.vs["id"]) if case.vs else None,
                "ps": wc._translate(case.ps["id"] if case.ps else wc.FF_PIXEL_STAND_IN)}
        from xlate.verify.gl import runner

        res = runner().draw(bare["vs"], bare["ps"], draw, targets=wc._targets(case.size))
        pixels = wc.quantise(res.colors[0])
        failed += not all(wc.check_probe(p, pixels).ok for p in case.probes)
    assert failed > len(chosen) // 2, (failed, len(chosen))


@pytest.mark.parametrize("case_id", _DRAW_STATE)
def test_draw_state_dynamic(case_id):
    """The fog / alpha-test cases with the state as uniforms (draw_state_mode
    "dynamic"), set from the case's state by the GL runner."""
    _gl_or_skip()
    res = wc.run_case(_CASES[case_id], mode="dynamic")
    assert res.passed, f"{case_id} (dynamic): {res.describe()}"


@pytest.mark.parametrize("case_id", _IN_SCOPE)
def test_case(case_id):
    case = _CASES[case_id]
    _gl_or_skip()
    res = _result(case_id)
    known = KNOWN_FAILURES.get(case_id)
    if known and res.passed:
        pytest.fail(f"{case_id} passes now: remove it from KNOWN_FAILURES (was: {known})")
    if not known and not res.passed:
        extra = " [only broken_accepted colours match]" if res.broken_only else ""
        wine = " [wine_todo: Wine fails it too]" if case.wine_todo else ""
        pytest.fail(f"{case_id}: {res.describe()}{extra}{wine}")


def test_summary(capsys):
    """Counts per Wine test function (all cases run here if not yet)."""
    if _MISSING:
        pytest.skip(_MISSING)
    _gl_or_skip()
    counts = collections.defaultdict(lambda: [0, 0, 0])
    broken = []
    for case_id, case in _CASES.items():
        if wc.out_of_scope(case):
            counts[case.function][2] += 1
            continue
        res = _result(case_id)
        counts[case.function][0 if res.passed else 1] += 1
        if res.broken_only:
            broken.append(case_id)
    total = [sum(v[i] for v in counts.values()) for i in range(3)]
    width = max(len(f) for f in counts)
    lines = [f"wine visual cases on llvmpipe: {total[0]} passed, {total[1]} failed "
             f"({len(KNOWN_FAILURES)} known), {total[2]} out of scope",
             f"  {'function':<{width}}  pass  fail  out-of-scope"]
    for f in sorted(counts):
        p, x, o = counts[f]
        lines.append(f"  {f:<{width}}  {p:4d}  {x:4d}  {o:12d}")
    if broken:
        lines.append("  failing cases that match only broken_accepted colours: " + ", ".join(sorted(broken)))
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    failed = {k for k, r in _RESULTS.items() if not r.passed}
    assert failed == set(KNOWN_FAILURES), (
        f"unexpected failures: {sorted(failed - set(KNOWN_FAILURES))}; "
        f"known failures that pass: {sorted(set(KNOWN_FAILURES) - failed)}")
