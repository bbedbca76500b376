"""Property tests: the decoder's contract on arbitrary input.

For any bytes, ``decode`` either returns a ``Shader`` that ``encode`` turns
back into the very same bytes, or raises a ``BytecodeError`` subclass whose
offset lies inside the blob.  Nothing else may escape (an ``IndexError``,
``struct.error``, ``ValueError`` ... is a decoder bug), and nothing may hang.

Inputs (11,500 hypothesis cases, plus 5,500 truncations and a few 1 MB blobs):

* random token streams (2,500): mostly a real version token, then tokens of
  the kinds the decoder tells apart (instruction, parameter, comment, END);
* random instructions (4,000): opcodes valid for the version with the
  operand count their form needs and registers that mostly exist, a quarter
  of them with a deliberate defect; about two thirds decode, so the encoder
  is exercised as much as the error paths;
* mutated corpus shaders (5,000): real fxc / vkd3d / Wine shaders with one
  to four bit flips, truncations, insertions, deletions, duplications,
  replaced words or planted opcodes, which reach deep into otherwise valid
  streams (and into the CTAB parser);
* every byte-prefix of 30 small corpus shaders.

Settings are derandomized (the same cases on every run, so CI is
reproducible) and without deadlines; ``scripts/fuzz`` runs the long campaign.
"""

from __future__ import annotations

import random
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpus import (
    END_TOKEN as END,
    INTERESTING_TOKENS,
    MUTATIONS,
    VERSION_TOKENS,
    check_decode_invariants,
    mix64,
    mutate_all,
    mutation_seeds,
    random_instruction,
    random_token,
)
from xlate.bytecode import decode
from xlate.errors import BytecodeError, MissingEndError

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,  # derandomized runs need no example database
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)

u32 = st.integers(0, 0xFFFFFFFF)


# One integer per token: the cheapest thing for hypothesis to draw.
any_token = st.integers(0, (1 << 64) - 1).map(random_token)


# --------------------------------------------------------------------------
# Random streams
# --------------------------------------------------------------------------


@settings(FUZZ, max_examples=2500)
@given(
    # Mostly a real version token: a random one ends the walk at once.
    version=u32.map(lambda x: VERSION_TOKENS[x % len(VERSION_TOKENS)] if mix64(x) % 5 else x),
    body=st.lists(any_token, max_size=40),
    end=st.booleans(),
    ragged=st.binary(max_size=3),
)
def test_random_token_streams(version, body, end, ragged):
    tokens = [version, *body, *([END] if end else [])]
    check_decode_invariants(struct.pack(f"<{len(tokens)}I", *tokens) + ragged)


@st.composite
def random_instructions(draw):
    """A version token and one to five instructions from ``random_instruction``
    (one drawn integer each), then END."""
    version = draw(st.sampled_from(VERSION_TOKENS))
    tokens = [version]
    for _ in range(draw(st.integers(1, 5))):
        tokens += random_instruction(version, draw(st.integers(0, (1 << 64) - 1)))
    tokens.append(END)
    return struct.pack(f"<{len(tokens)}I", *tokens)


@settings(FUZZ, max_examples=4000)
@given(data=random_instructions())
def test_random_instructions(data):
    check_decode_invariants(data)


# --------------------------------------------------------------------------
# Mutated corpus shaders
# --------------------------------------------------------------------------

# (kind, position, value); plain integers are the cheapest thing for
# hypothesis to draw, and the mapping spreads them: position is near the
# start (version, CTAB header, declarations) or anywhere, value is a random
# word or one of INTERESTING_TOKENS.
mutation = st.tuples(st.integers(0, len(MUTATIONS) - 1), st.integers(0, 1 << 32), st.integers(0, 1 << 32)).map(
    lambda m: (
        MUTATIONS[m[0]],
        m[1] & 63 if m[1] & 64 else mix64(m[1]),
        INTERESTING_TOKENS[m[2] % len(INTERESTING_TOKENS)] if m[2] & 1 else mix64(m[2]) & 0xFFFFFFFF,
    )
)


@settings(FUZZ, max_examples=5000)
@given(index=st.integers(0, 1 << 20), mutations=st.lists(mutation, min_size=1, max_size=4))
def test_mutated_corpus_shaders(index, mutations):
    seeds = mutation_seeds()
    # hypothesis favours small integers; scatter them over the whole corpus.
    _, data = seeds[(index * 2654435761) % len(seeds)]
    check_decode_invariants(mutate_all(data, mutations))


def test_every_truncation_of_some_shaders():
    """Cutting a valid shader at every byte is always a clean BytecodeError."""
    seeds = mutation_seeds()
    rng = random.Random(1234)
    small = [seed for seed in seeds if len(seed[1]) <= 512]  # cost is quadratic in size
    picked = rng.sample(small, min(30, len(small)))
    assert picked
    for _, data in picked:
        for cut in range(len(data)):
            result = check_decode_invariants(data[:cut])
            assert isinstance(result, BytecodeError), f"a {cut}-byte prefix of a {len(data)}-byte shader decoded"


# --------------------------------------------------------------------------
# Large inputs finish (no hang, no quadratic blow-up)
# --------------------------------------------------------------------------

MEGABYTE = 1 << 20


def test_one_megabyte_of_random_bytes():
    rng = random.Random(99)
    check_decode_invariants(rng.randbytes(MEGABYTE))


def test_one_megabyte_of_random_tokens_after_a_version_token():
    rng = random.Random(100)
    for version in (0xFFFE0101, 0xFFFF0300):
        check_decode_invariants(struct.pack("<I", version) + rng.randbytes(MEGABYTE))


def test_one_megabyte_of_empty_comments_without_end():
    # 262,143 comment headers of size 0: the walk must reach the end of the
    # blob in linear time and report the missing END there.
    count = MEGABYTE // 4 - 1
    data = struct.pack("<I", 0xFFFF0300) + struct.pack("<I", 0x0000FFFE) * count
    result = check_decode_invariants(data)
    assert isinstance(result, MissingEndError) and result.offset == len(data)


def test_a_long_valid_stream():
    # A long but valid stream (256 KB: 21,845 instructions) decodes and round-trips.
    mov = struct.pack("<3I", 0x02000001, 0x800F0000, 0x90E40000)  # mov r0, v0
    count = MEGABYTE // 4 // len(mov)
    data = struct.pack("<I", 0xFFFF0200) + mov * count + struct.pack("<I", END)
    shader = check_decode_invariants(data)
    assert not isinstance(shader, BytecodeError)
    assert len(shader.items) == count


def test_decode_accepts_bytearray_and_memoryview():
    data = bytes.fromhex("0002ffff" "ffff0000")
    assert decode(bytearray(data)) == decode(memoryview(data)) == decode(data)
