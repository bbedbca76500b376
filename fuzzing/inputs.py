"""The inputs of the campaign: input ``i`` of entry point ``e`` under seed
``s`` is made from ``random.Random(f"{s}:{e}:{i}")`` and the seed corpora
alone, so a run gives the same inputs whatever the number of workers, the
chunking or the part of the campaign it runs."""

from __future__ import annotations

import functools
import random
import struct

import corpus
import hostile
from corpus import END_TOKEN, INTERESTING_TOKENS, MUTATIONS, VERSION_TOKENS, mutate, random_instruction, random_token

from xlate.errors import XlateError

from . import effects

BINARY_ENTRIES = ("decode", "disasm", "info")
TEXT_ENTRIES = ("asm",)
TRANSLATE_ENTRIES = ("glsl120", "glsl330", "glsl450", "essl100", "essl300", "vulkan", "spirv")
CONTAINER_ENTRIES = ("effect", "convert")
ALL_ENTRIES = BINARY_ENTRIES + TEXT_ENTRIES + TRANSLATE_ENTRIES + CONTAINER_ENTRIES
SELFTEST = "selftest"  # the pool's own check (not a campaign entry): input i is the integer i, see entries.run_selftest
GLSL_TARGETS = ("glsl120", "glsl330", "glsl450", "essl100", "essl300")  # checked by glslang (a share)
# ``convert`` runs a tree of this many files (consecutive inputs) per call:
# the run's fixed cost (walk, manifest) is paid once per tree.
TREE_FILES = 8


def rng_of(seed: int, entry: str, index: int) -> random.Random:
    return random.Random(f"{seed}:{entry}:{index}")


@functools.lru_cache(maxsize=None)
def shader_seeds() -> tuple:
    return corpus.mutation_seeds()


def make_input(entry: str, seed: int, index: int):
    """Input ``index`` of ``entry``: bytes, assembly text (asm) or, for
    convert, one file ``(name, bytes)`` of a tree."""
    if entry == SELFTEST:
        return index
    rng = rng_of(seed, entry, index)
    if entry in TEXT_ENTRIES:
        return text_case(rng)
    if entry == "effect":
        return effects.effect_case(rng)
    if entry == "convert":
        return tree_file(rng, index)
    return binary_case(rng)


def glslang_pick(seed: int, entry: str, index: int, share: float) -> bool:
    """Whether input ``index``'s GLSL goes to glslang (deterministic too)."""
    return random.Random(f"{seed}:{entry}:{index}:glslang").random() < share if share < 1 else True


# --------------------------------------------------------------------------
# Shader blobs
# --------------------------------------------------------------------------


def _word(rng: random.Random) -> int:
    return rng.choice(INTERESTING_TOKENS) if rng.random() < 0.3 else rng.getrandbits(32)


def binary_case(rng: random.Random) -> bytes:
    seeds = shader_seeds()
    r = rng.random()
    if r < 0.1:  # generated: mostly well-formed instructions, or a token soup
        version = rng.choice(VERSION_TOKENS)
        if rng.random() < 0.6:
            tokens = [version]
            for _ in range(rng.randint(1, 5)):
                tokens += random_instruction(version, rng.getrandbits(64))
        else:
            tokens = [version] + [random_token(rng.getrandbits(64)) for _ in range(rng.randrange(40))]
        tokens.append(END_TOKEN)
        return struct.pack(f"<{len(tokens)}I", *tokens)
    _, data = rng.choice(seeds)
    if r < 0.45:  # byte-level
        for _ in range(1 if rng.random() < 0.5 else rng.randint(2, 4)):
            position = rng.randrange(64) if rng.random() < 0.5 else rng.getrandbits(32)
            data = mutate(data, rng.choice(MUTATIONS), position, _word(rng))
        return data
    if r < 0.6:  # hostile CTAB names, maybe mutated further
        start = rng.randrange(len(hostile.HOSTILE_NAMES))
        names = list(hostile.HOSTILE_NAMES[start:] + hostile.HOSTILE_NAMES[:start])
        data = hostile.with_hostile_ctab(data, names)
        if rng.random() < 0.3:
            data = hostile.structured_mutation(data, rng)
        return data
    data = hostile.structured_mutation(data, rng)  # structure-aware (seeds decode)
    if rng.random() < 0.3:
        try:
            data = hostile.structured_mutation(data, rng)
        except XlateError:
            pass
    return data


# --------------------------------------------------------------------------
# Assembly text
# --------------------------------------------------------------------------

_LISTINGS: dict[int, str] = {}


def listing(k: int) -> str:
    if k not in _LISTINGS:
        from xlate.bytecode import decode
        from xlate.bytecode.disasm import disassemble

        _LISTINGS[k] = disassemble(decode(shader_seeds()[k][1]))
    return _LISTINGS[k]


VOCABULARY = (
    "r0", "r31", "c0", "c255", "c8191", "s0", "s15", "v0", "t0", "oC0", "oPos", "oDepth", "aL", "a0", "p0",
    "i0", "b0", "l0", "vFace", "vPos", "-", "_abs", "_bias", "_bx2", "_x2", "_dz", "!", "1-", "_sat", "_pp",
    "_centroid", "_x4", ".xyzw", ".w", ".rgba", "[a0.x]", "[aL]", "texld", "texldl", "loop aL, i0", "rep i0",
    "if b0", "endif", "endloop", "endrep", "call l0", "label l0", "ret", "def c0, 1, 2, 3, 4", "dcl_2d",
    "dcl_volume", "dcl_texcoord0", "+", "(p0)", "(!p0.x)", "break", "setp_gt", "#define", "#if 1", "#endif",
    "/*", "*/", "\\", ";", ",", "", "\x00", "\x1b[31m", "[/]", "é",
)
# The preprocessor bombs (doubling #defines, 20,000-term #if) cost up to a
# tenth of a second each, by design bounded by the preprocessor's limits:
# one mutation in this many is one, so that they stay a few percent of the
# inputs and do not set the rate of the whole entry point.
BOMB_ODDS = 30


def text_case(rng: random.Random) -> str:
    text = listing(rng.randrange(len(shader_seeds())))
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        n = len(lines)
        kind = rng.randrange(9)
        if kind in (5, 6) and rng.randrange(BOMB_ODDS):
            kind = 3
        k = rng.randrange(n) if n else 0
        if kind == 0 and n:
            del lines[k]
        elif kind == 1 and n:
            lines.insert(k, lines[rng.randrange(n)])
        elif kind == 2 and n:
            j = rng.randrange(n)
            lines[k], lines[j] = lines[j], lines[k]
        elif kind in (3, 4) and n:  # replace or insert a word
            words = lines[k].split(" ")
            w = rng.randrange(len(words))
            word = rng.choice(VOCABULARY)
            if kind == 3:
                words[w] = word
            else:
                words.insert(w, word)
            lines[k] = " ".join(words)
        elif kind == 5:  # doubling macros, used a few times
            depth = rng.randint(2, 24)
            macros = ["#define M0 " + rng.choice(("mov r0, r0", "r0", "c0", "1", ""))]
            macros += [f"#define M{i} M{i - 1} M{i - 1}" for i in range(1, depth)]
            lines[k:k] = macros + [f"M{depth - 1}"] * rng.randint(1, 50)
        elif kind == 6:  # a long #if expression
            terms = rng.choice((10, 1000, 20000))
            lines[k:k] = ["#if " + rng.choice("+-*&|").join(["1"] * terms), "#endif"]
        elif kind == 7:  # a hostile comment
            lines.insert(k, "// " + rng.choice(hostile.HOSTILE_NAMES)[:2000])
        else:  # cut the text
            cut = rng.randrange(len("\n".join(lines)) + 1)
            lines = "\n".join(lines)[:cut].split("\n")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Files of a convert tree
# --------------------------------------------------------------------------

# File names as a user's asset tree may hold them: spaces, non-ASCII,
# markup, a newline, an escape; folders; extensions that lie.
_NAME_PARTS = ("shader", "a b", "é", "[/]", "x\ny", "\x1b[1m", "--flag", ".hidden", "CON", "ü" * 40)
_EXTENSIONS = (".vso", ".pso", ".fxo", ".fxb", ".asm", ".txt", ".bin", "")


def tree_file(rng: random.Random, index: int) -> tuple[str, bytes]:
    """One file of a convert tree: a mutated shader, effect or listing, an
    untouched seed, or bytes that are no shader."""
    r = rng.random()
    if r < 0.4:
        data = binary_case(rng)
    elif r < 0.6:
        data = text_case(rng).encode("utf-8", "surrogatepass")
    elif r < 0.8:
        data = effects.effect_case(rng)
    elif r < 0.9:
        data = rng.choice(shader_seeds())[1]
    else:
        data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(64)))
    name = f"{index % TREE_FILES}-{rng.choice(_NAME_PARTS)}{rng.choice(_EXTENSIONS)}"
    if rng.random() < 0.3:
        name = rng.choice(("sub", "deep/er", "é")) + "/" + name
    return name, data
