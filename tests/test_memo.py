"""The per-process memos (``xlate.memo``) stay bounded and hand back what
they were given."""

from xlate.backends import layout, names
from xlate.backends.spirv import interface, module
from xlate.memo import remember


def test_remember_stores_and_empties_a_full_memo():
    memo: dict = {}
    for key in range(5):
        assert remember(memo, key, key * 2, 3) == key * 2
    # the fourth key found the memo full: it was emptied, then 3 and 4 went in
    assert memo == {3: 6, 4: 8}


def test_memos_stay_bounded_over_endless_names():
    """A batch of hostile shaders with ever new CTAB names cannot grow the
    name, access and SPIR-V string memos past their limits."""
    namer = names.Namer()
    for k in range(names._SANITIZED_MAX + 100):
        text = f"hostile_name_{k}"
        namer.name(text)
        layout._WHOLE.get(text) or layout._whole(text)
        module.string_words(text)
        interface.NAME_WORDS.get(text) or interface._name_entry(text)
    assert len(names._SANITIZED) <= names._SANITIZED_MAX
    assert len(layout._WHOLE) <= layout._ACCESS_MAX
    assert len(module._STRINGS) <= module._STRINGS_MAX
    assert len(interface.NAME_WORDS) <= interface._MEMO_MAX
    # and what a memo hands back is what it was given: the access record of a name
    assert layout._whole("r0") == layout.Access("r0")
