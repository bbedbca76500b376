"""Malformed bytecode: each defect gets its exact error class, the byte offset
of the token at fault, and a one-line message naming the facts.

Every case is a small hand-built token stream: a valid shader with exactly
one thing wrong, so the test pins down which check fires and where.  The
streams are spelled with the helpers below (``ins``, ``dst``, ``src``) rather
than bare hex, so a reader can see which field is broken.
"""

from __future__ import annotations

import struct

import pytest

from xlate.bytecode import decode, encode
from xlate.bytecode.tables import BITS, Opcode, RegisterType, register_type_bits
from xlate.errors import (
    BytecodeError,
    CommentOverrunError,
    CtabError,
    LengthMismatchError,
    MissingEndError,
    NotAShaderError,
    OpcodeVersionError,
    OperandError,
    RegisterError,
    ReservedBitsError,
    TrailingDataError,
    TruncatedError,
    UnknownOpcodeError,
    VersionError,
)

R = RegisterType
O = Opcode

# Version tokens.
VS10, VS11, VS20, VS2X, VS30 = 0xFFFE0100, 0xFFFE0101, 0xFFFE0200, 0xFFFE0201, 0xFFFE0300
PS11, PS14, PS20, PS2X, PS30 = 0xFFFF0101, 0xFFFF0104, 0xFFFF0200, 0xFFFF0201, 0xFFFF0300
END = 0x0000FFFF


def blob(*tokens: int) -> bytes:
    return struct.pack(f"<{len(tokens)}I", *tokens)


def ins(opcode: int, length: int = 0, control: int = 0, extra: int = 0) -> int:
    """An instruction token; ``length`` is the SM2+ parameter count (bits 24-27)."""
    return int(opcode) | (control << 16) | (length << 24) | extra


def _reg(rtype: RegisterType, index: int) -> int:
    return BITS.PARAM | register_type_bits(int(rtype)) | index


def dst(rtype: RegisterType, index: int, mask: int = 0xF, extra: int = 0) -> int:
    return _reg(rtype, index) | (mask << 16) | extra


def src(rtype: RegisterType, index: int, swizzle: int = 0xE4, mod: int = 0, extra: int = 0) -> int:
    return _reg(rtype, index) | (swizzle << 16) | (mod << 24) | extra


ONE = 0x3F800000  # 1.0f, for def literals


def expect_error(data: bytes, cls: type[BytecodeError], offset: int, *facts: str, **decode_options) -> BytecodeError:
    """Decode ``data``; it must raise exactly ``cls`` at ``offset`` with ``facts`` in the message."""
    with pytest.raises(BytecodeError) as info:
        decode(data, **decode_options)
    err = info.value
    assert type(err) is cls, f"expected {cls.__name__}, got {type(err).__name__}: {err}"
    assert err.offset == offset, f"expected offset {offset}, got {err.offset}: {err}"
    assert_plain_sentence(err.reason)
    for fact in facts:
        assert fact.lower() in err.reason.lower(), f"{fact!r} missing from {err.reason!r}"
    # str() leads with the offset in decimal and hex, then the reason.
    assert str(err) == f"byte offset {offset} (0x{offset:x}): {err.reason}"
    return err


def assert_plain_sentence(reason: str) -> None:
    assert isinstance(reason, str) and len(reason) > 15, reason
    assert "\n" not in reason and reason == reason.strip(), reason
    for leak in ("Traceback", "<class", "<RegisterType", "<Opcode", "None", "0x-"):
        assert leak not in reason, f"{leak!r} leaked into the message: {reason!r}"


# --------------------------------------------------------------------------
# The building blocks decode when nothing is wrong (so each failure below is
# caused by its one defect).
# --------------------------------------------------------------------------

GOOD = {
    "ps_2_0 mov": blob(PS20, ins(O.MOV, 2), dst(R.COLOROUT, 0), src(R.INPUT, 0), END),
    "ps_2_0 add": blob(PS20, ins(O.ADD, 3), dst(R.TEMP, 0), src(R.INPUT, 0), src(R.INPUT, 1), END),
    "ps_1_1 add": blob(PS11, ins(O.ADD), dst(R.TEMP, 0), src(R.INPUT, 0), src(R.INPUT, 1), END),
    "vs_1_1 mov c[a0]": blob(VS11, ins(O.MOV), dst(R.TEMP, 0), src(R.CONST, 0, extra=BITS.RELATIVE), END),
    "vs_2_x predicated mov": blob(
        VS2X, ins(O.MOV, 3, extra=BITS.PREDICATED), dst(R.TEMP, 0), src(R.PREDICATE, 0), src(R.INPUT, 0), END
    ),
    "vs_3_0 mov v[a0.x]": blob(
        VS30, ins(O.MOV, 3), dst(R.TEMP, 0), src(R.INPUT, 0, extra=BITS.RELATIVE), src(R.ADDR, 0, 0x00), END
    ),
    "ps_2_0 def": blob(PS20, ins(O.DEF, 5), dst(R.CONST, 31), ONE, ONE, ONE, ONE, END),
    "ps_2_0 def c32 (beyond Windows, like DXVK)": blob(PS20, ins(O.DEF, 5), dst(R.CONST, 32), ONE, ONE, ONE, ONE, END),
    "ps_2_0 comment": blob(PS20, 0x0002FFFE, 0x41414141, 0x42424242, END),
    "ps_1_4 co-issued mov": blob(
        PS14, ins(O.MOV), dst(R.TEMP, 0, mask=0x7), src(R.TEMP, 1),
        ins(O.MOV, extra=BITS.COISSUE), dst(R.TEMP, 0, mask=0x8), src(R.TEMP, 2), END,
    ),
    "ps_1_1 mov_x2": blob(PS11, ins(O.MOV), dst(R.TEMP, 0, extra=1 << 24), src(R.INPUT, 0), END),
    "vs_1_0": blob(VS10, ins(O.MOV), dst(R.RASTOUT, 0), src(R.INPUT, 0), END),
}


@pytest.mark.parametrize("name", GOOD)
def test_building_blocks_decode(name):
    data = GOOD[name]
    assert encode(decode(data)) == data


# --------------------------------------------------------------------------
# Truncation
# --------------------------------------------------------------------------


class TestTruncated:
    def test_empty_blob(self):
        expect_error(b"", TruncatedError, 0, "0 bytes", "version token")

    def test_shorter_than_a_version_token(self):
        expect_error(b"\x00\x02\xff", TruncatedError, 0, "3 bytes", "version token")

    def test_length_not_a_multiple_of_4(self):
        # A whole mov, then half of the END token.
        data = GOOD["ps_2_0 mov"][:-4] + b"\xff\xff"
        expect_error(data, TruncatedError, 16, "18", "not a multiple of 4")

    def test_sm2_instruction_longer_than_the_stream(self):
        # add declares 3 parameter tokens; the stream stops after 2.
        data = blob(PS20, ins(O.ADD, 3), dst(R.TEMP, 0), src(R.INPUT, 0))
        expect_error(data, TruncatedError, 4, "'add'", "3 parameter tokens", "only 2 remain")

    def test_sm2_instruction_cut_mid_token(self):
        data = GOOD["ps_2_0 add"][:18]  # inside add's second source token
        expect_error(data, TruncatedError, 4, "'add'", "3 parameter tokens", "only 2 remain")

    def test_sm1_instruction_cut_short(self):
        # SM1 has no length field: the tables say add reads dst, src, src.
        data = blob(PS11, ins(O.ADD), dst(R.TEMP, 0), src(R.INPUT, 0))
        expect_error(data, TruncatedError, 16, "'add'", "source")

    def test_sm1_def_cut_inside_its_literals(self):
        data = blob(VS11, ins(O.DEF), dst(R.CONST, 0), ONE, ONE)
        expect_error(data, TruncatedError, 20, "'def'", "constant value")


# --------------------------------------------------------------------------
# Version token
# --------------------------------------------------------------------------


class TestVersion:
    def test_garbage(self):
        expect_error(blob(0x12345678, END), VersionError, 0, "0x12345678", "not a version token")

    def test_an_instruction_token_first(self):
        expect_error(GOOD["ps_2_0 mov"][4:], VersionError, 0, "0x02000001")

    def test_vs_4_0(self):
        expect_error(blob(0xFFFE0400, END), VersionError, 0, "vs 4.0", "0xfffe0400")

    def test_ps_1_9(self):
        expect_error(blob(0xFFFF0109, END), VersionError, 0, "ps 1.9", "0xffff0109")

    def test_vs_1_4_does_not_exist(self):
        expect_error(blob(0xFFFE0104, END), VersionError, 0, "vs 1.4")

    def test_fx_2_0_effect(self):
        err = expect_error(blob(0xFEFF0901, 0, 0, 0), NotAShaderError, 0, "fx_2_0", "0xFEFF0901", "not a shader")
        assert isinstance(err, VersionError)  # callers catching VersionError see it too

    def test_xna_effect(self):
        expect_error(blob(0xBCF00BCF, 0), NotAShaderError, 0, "XNA", "not a shader")


# --------------------------------------------------------------------------
# Opcodes
# --------------------------------------------------------------------------


class TestOpcodes:
    def test_unknown_opcode(self):
        expect_error(blob(PS20, ins(0x31), END), UnknownOpcodeError, 4, "unknown opcode 0x0031")

    def test_unknown_high_opcode(self):
        expect_error(blob(VS20, ins(0x1234, 1), src(R.TEMP, 0), END), UnknownOpcodeError, 4, "0x1234")

    def test_reserved_texm3x3diff(self):
        data = blob(PS11, ins(O.RESERVED0), dst(R.ADDR, 1), src(R.ADDR, 0), END)
        expect_error(data, UnknownOpcodeError, 4, "0x004b", "reserved")

    def test_texbem_in_ps_2_0(self):
        data = blob(PS20, ins(O.TEXBEM, 2), dst(R.ADDR, 1), src(R.ADDR, 0), END)
        expect_error(data, OpcodeVersionError, 4, "'texbem'", "ps_2_0")

    def test_loop_in_vs_1_1(self):
        data = blob(VS11, ins(O.LOOP), src(R.LOOP, 0), src(R.CONSTINT, 0), END)
        expect_error(data, OpcodeVersionError, 4, "'loop'", "vs_1_1")

    def test_lit_in_a_pixel_shader(self):
        data = blob(PS30, ins(O.LIT, 2), dst(R.TEMP, 0), src(R.TEMP, 1), END)
        expect_error(data, OpcodeVersionError, 4, "'lit'", "ps_3_0")

    def test_texkill_in_a_vertex_shader(self):
        data = blob(VS30, ins(O.TEXKILL, 1), dst(R.TEMP, 0), END)
        expect_error(data, OpcodeVersionError, 4, "'texkill'", "vs_3_0")

    def test_defb_in_ps_2_0(self):
        # Wine's ps_2_0_boolint: Windows refuses b# definitions below ps_2_x.
        data = blob(PS20, ins(O.DEFB, 2), dst(R.CONSTBOOL, 0), 1, END)
        expect_error(data, OpcodeVersionError, 4, "'defb'", "ps_2_0")

    def test_error_offset_points_at_the_later_instruction(self):
        data = GOOD["ps_2_0 mov"][:-4] + blob(ins(O.TEXBEM, 2), dst(R.ADDR, 1), src(R.ADDR, 0), END)
        expect_error(data, OpcodeVersionError, 16, "'texbem'")


# --------------------------------------------------------------------------
# SM2+ length field
# --------------------------------------------------------------------------


class TestLengthMismatch:
    def test_too_many_operands(self):
        data = blob(PS20, ins(O.MOV, 3), dst(R.TEMP, 0), src(R.INPUT, 0), src(R.INPUT, 1), END)
        expect_error(data, LengthMismatchError, 4, "'mov'", "2 source operand(s)", "takes 1")

    def test_too_few_operands(self):
        data = blob(PS20, ins(O.ADD, 2), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, LengthMismatchError, 4, "'add'", "1 source operand(s)", "takes 2")

    def test_length_zero_leaves_no_room_for_the_destination(self):
        data = blob(PS20, ins(O.MOV, 0), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, LengthMismatchError, 8, "'mov'", "ends before", "destination")

    def test_def_length_too_short(self):
        data = blob(PS20, ins(O.DEF, 3), dst(R.CONST, 0), ONE, ONE, ONE, ONE, END)
        expect_error(data, LengthMismatchError, 20, "'def'", "ends before", "constant value")

    def test_def_length_too_long(self):
        data = blob(PS20, ins(O.DEF, 6), dst(R.CONST, 0), ONE, ONE, ONE, ONE, ONE, END)
        expect_error(data, LengthMismatchError, 28, "'def'", "1 token(s) more")

    def test_sincos_sm3_form_in_sm2(self):
        # vs_2_0 sincos takes dst + 3 sources; the one-source vs_3_0 form is wrong here.
        data = blob(VS20, ins(O.SINCOS, 2), dst(R.TEMP, 0, mask=0x3), src(R.TEMP, 1, 0x00), END)
        expect_error(data, LengthMismatchError, 4, "'sincos'", "takes 3")


# --------------------------------------------------------------------------
# Registers
# --------------------------------------------------------------------------


class TestRegisters:
    def test_texture_register_in_ps_3_0(self):
        # Type 3 is t# in ps_1_x/ps_2_x; ps_3_0 has no t# registers.
        data = blob(PS30, ins(O.MOV, 2), dst(R.COLOROUT, 0), src(R.ADDR, 0), END)
        expect_error(data, RegisterError, 12, "source", "does not exist in ps_3_0")

    def test_a0_in_a_pixel_shader(self):
        # ps_3_0 may index v# relatively, but only by aL: there is no a0.
        data = blob(PS30, ins(O.MOV, 3), dst(R.COLOROUT, 0), src(R.INPUT, 0, extra=BITS.RELATIVE), src(R.ADDR, 0), END)
        expect_error(data, RegisterError, 16, "relative address", "ps_3_0")

    def test_unknown_register_type(self):
        data = blob(VS20, ins(O.MOV, 2), dst(R.TEMP, 0), src(20, 0), END)
        expect_error(data, RegisterError, 12, "register type 20", "not a D3D9 register type")

    def test_const_index_out_of_range_ps_1_1(self):
        data = blob(PS11, ins(O.DEF), dst(R.CONST, 8), ONE, ONE, ONE, ONE, END)
        expect_error(data, RegisterError, 8, "index 8", "ps_1_1", "0-7")

    def test_const_index_out_of_range_ps_2_0(self):
        # c0-c223 in every SM2+ pixel shader (a superset of the documented
        # c0-c31, as DXVK does: vkd3d's compiler writes c32+ in ps_2_0).
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0), src(R.CONST, 224), END)
        expect_error(data, RegisterError, 12, "index 224", "ps_2_0", "0-223")

    def test_temp_index_out_of_range_vs_1_1(self):
        data = blob(VS11, ins(O.MOV), dst(R.TEMP, 12), src(R.INPUT, 0), END)
        expect_error(data, RegisterError, 8, "index 12", "vs_1_1", "0-11")

    def test_sampler_index_out_of_range(self):
        data = blob(PS20, ins(O.DCL, 2), 0x90000000, dst(R.SAMPLER, 16), END)
        expect_error(data, RegisterError, 12, "SAMPLER", "index 16", "0-15")

    def test_writing_an_input_register(self):
        data = blob(VS20, ins(O.MOV, 2), dst(R.INPUT, 0), src(R.TEMP, 0), END)
        expect_error(data, RegisterError, 8, "INPUT", "cannot be written", "vs_2_0")


class TestRelativeAddressing:
    def test_const_in_ps_2_0(self):
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0), src(R.CONST, 0, extra=BITS.RELATIVE), END)
        expect_error(data, RegisterError, 12, "relative addressing", "CONST", "ps_2_0")

    def test_const_in_ps_3_0(self):
        data = blob(PS30, ins(O.MOV, 3), dst(R.TEMP, 0), src(R.CONST, 0, extra=BITS.RELATIVE), src(R.LOOP, 0), END)
        expect_error(data, RegisterError, 12, "relative addressing", "CONST", "ps_3_0")

    def test_destination_in_vs_1_1(self):
        data = blob(VS11, ins(O.MOV), dst(R.TEMP, 0, extra=BITS.RELATIVE), src(R.INPUT, 0), END)
        expect_error(data, RegisterError, 8, "relative addressing", "destination", "vs_1_1")

    def test_destination_in_vs_3_0_must_be_an_output(self):
        data = blob(VS30, ins(O.MOV, 3), dst(R.TEMP, 0, extra=BITS.RELATIVE), src(R.LOOP, 0), src(R.INPUT, 0), END)
        expect_error(data, RegisterError, 8, "relative addressing", "TEMP destination", "vs_3_0")

    def test_destination_in_ps_3_0(self):
        # Regression: this path once raised AttributeError (RegisterType.OUTPUT).
        data = blob(PS30, ins(O.MOV, 3), dst(R.COLOROUT, 0, extra=BITS.RELATIVE), src(R.LOOP, 0), src(R.INPUT, 0), END)
        expect_error(data, RegisterError, 8, "relative addressing", "COLOROUT destination", "ps_3_0")

    def test_vs_3_0_output_indexed_by_aL_decodes(self):
        data = blob(VS30, ins(O.MOV, 3), dst(R.TEXCRDOUT, 0, extra=BITS.RELATIVE), src(R.LOOP, 0), src(R.INPUT, 0), END)
        shader = decode(data)
        assert shader.instructions[0].dst.relative.type == R.LOOP
        assert encode(shader) == data

    def test_address_token_must_be_a0_or_aL(self):
        data = blob(VS20, ins(O.MOV, 3), dst(R.TEMP, 0), src(R.CONST, 0, extra=BITS.RELATIVE), src(R.TEMP, 0), END)
        expect_error(data, RegisterError, 16, "a0 or aL", "TEMP")

    def test_address_token_with_a_modifier(self):
        data = blob(
            VS20, ins(O.MOV, 3), dst(R.TEMP, 0), src(R.CONST, 0, extra=BITS.RELATIVE), src(R.ADDR, 0, 0x00, mod=1), END
        )
        expect_error(data, ReservedBitsError, 16, "relative-address token", "no modifier")

    def test_address_token_missing_at_end_of_instruction(self):
        # The relative bit promises an extra token, but the length field ends first.
        data = blob(VS20, ins(O.MOV, 2), dst(R.TEMP, 0), src(R.CONST, 0, extra=BITS.RELATIVE), END)
        expect_error(data, LengthMismatchError, 16, "'mov'", "ends before", "relative address")


# --------------------------------------------------------------------------
# Reserved bits
# --------------------------------------------------------------------------


class TestReservedBits:
    def test_instruction_bit_29(self):
        data = blob(PS20, ins(O.MOV, 2, extra=BITS.INSTR_RESERVED), dst(R.COLOROUT, 0), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 4, "bit 29", "0x22000001")

    def test_coissue_in_a_vertex_shader(self):
        data = blob(VS20, ins(O.MOV, 2, extra=BITS.COISSUE), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 4, "co-issue", "vs_2_0")

    def test_coissue_in_ps_2_0(self):
        data = blob(PS20, ins(O.MOV, 2, extra=BITS.COISSUE), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 4, "co-issue", "ps_2_0")

    def test_coissue_on_def(self):
        # Regression: the bit was accepted and then lost (encode dropped it).
        data = blob(PS14, ins(O.DEF, extra=BITS.COISSUE), dst(R.CONST, 0), ONE, ONE, ONE, ONE, END)
        expect_error(data, ReservedBitsError, 4, "co-issue", "'def'")

    def test_predicate_bit_in_sm1(self):
        data = blob(VS11, ins(O.MOV, extra=BITS.PREDICATED), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 4, "predicate bit", "shader model 1")

    def test_predicate_bit_on_an_unpredicable_instruction(self):
        data = blob(VS2X, ins(O.ENDIF, 1, extra=BITS.PREDICATED), src(R.PREDICATE, 0), END)
        expect_error(data, ReservedBitsError, 4, "predicate bit", "'endif'")

    def test_result_shift_in_ps_2_0(self):
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0, extra=1 << 24), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 8, "result shift", "ps_2_0")

    def test_result_shift_in_a_vertex_shader(self):
        data = blob(VS11, ins(O.MOV), dst(R.TEMP, 0, extra=0xF << 24), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 8, "result shift", "vs_1_1")

    def test_result_modifier_bit_23(self):
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0, extra=1 << 23), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 8, "bit 23")

    def test_source_modifier_14(self):
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0), src(R.INPUT, 0, mod=14), END)
        expect_error(data, ReservedBitsError, 12, "source modifier 14")

    def test_source_modifier_15(self):
        data = blob(VS11, ins(O.MOV), dst(R.TEMP, 0), src(R.INPUT, 0, mod=15), END)
        expect_error(data, ReservedBitsError, 12, "source modifier 15")

    @pytest.mark.parametrize("bit", [14, 15])
    def test_parameter_bits_14_15_in_destination(self, bit):
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0, extra=1 << bit), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 8, "bits 14-15", "destination")

    def test_parameter_bits_14_15_in_source(self):
        data = blob(PS20, ins(O.MOV, 2), dst(R.TEMP, 0), src(R.INPUT, 0, extra=0xC000), END)
        expect_error(data, ReservedBitsError, 12, "bits 14-15", "source")

    def test_length_bits_in_sm1(self):
        data = blob(PS11, ins(O.MOV, 2), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 4, "bits 24-27", "shader model 1", "hold 2")

    def test_control_bits_on_mov(self):
        data = blob(PS20, ins(O.MOV, 2, control=0x01), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 4, "'mov'", "control bits 16-23", "0x01")

    def test_texld_control_3(self):
        data = blob(PS20, ins(O.TEX, 3, control=3), dst(R.TEMP, 0), src(R.ADDR, 0), src(R.SAMPLER, 0), END)
        expect_error(data, ReservedBitsError, 4, "texld control 0x03")

    def test_comparison_with_reserved_bits(self):
        data = blob(PS2X, ins(O.BREAKC, 2, control=0x09), src(R.TEMP, 0), src(R.TEMP, 1), END)
        expect_error(data, ReservedBitsError, 4, "'breakc'", "comparison control 0x09")

    def test_end_token_with_extra_bits(self):
        data = blob(PS20, 0x0100FFFF)
        expect_error(data, ReservedBitsError, 4, "END token", "0x0100ffff")

    def test_dcl_usage_token_reserved_bits(self):
        data = blob(VS20, ins(O.DCL, 2), 0x80000100, dst(R.INPUT, 0), END)
        expect_error(data, ReservedBitsError, 8, "DCL usage token", "0x80000100")


# --------------------------------------------------------------------------
# Desynchronised streams
# --------------------------------------------------------------------------


class TestOperandKinds:
    def test_parameter_token_where_an_instruction_belongs(self):
        # ps_1_1 mov takes dst + 1 source; the third token is one too many.
        data = blob(PS11, ins(O.MOV), dst(R.TEMP, 0), src(R.INPUT, 0), src(R.INPUT, 1), END)
        expect_error(data, OperandError, 16, "expected an instruction token", "0x90e40001", "out of step")

    def test_instruction_token_where_a_parameter_belongs(self):
        # SM1 add reads 3 parameters; an END arrives in the middle.
        data = blob(VS11, ins(O.ADD), dst(R.TEMP, 0), src(R.INPUT, 0), END)
        expect_error(data, OperandError, 16, "source", "'add'", "0x0000ffff", "bit 31 clear")

    def test_dcl_usage_token_without_bit_31(self):
        data = blob(VS20, ins(O.DCL, 2), 0x00000000, dst(R.INPUT, 0), END)
        expect_error(data, OperandError, 8, "DCL usage token", "bit 31")

    def test_comment_token_with_bit_31(self):
        # Bit 31 turns a comment header into a (stray) parameter token.
        data = blob(PS20, 0x8001FFFE, 0, END)
        expect_error(data, OperandError, 4, "expected an instruction token", "0x8001fffe")


class TestPredicate:
    def test_predicate_token_naming_a_temp(self):
        data = blob(VS2X, ins(O.MOV, 3, extra=BITS.PREDICATED), dst(R.TEMP, 0), src(R.TEMP, 1), src(R.INPUT, 0), END)
        expect_error(data, OperandError, 12, "predicate token", "'mov'", "TEMP", "not p0")

    def test_predicate_token_with_a_negate_modifier(self):
        data = blob(
            VS2X, ins(O.MOV, 3, extra=BITS.PREDICATED), dst(R.TEMP, 0), src(R.PREDICATE, 0, mod=1), src(R.INPUT, 0), END
        )
        expect_error(data, OperandError, 12, "predicate token", "NOT")

    def test_predicate_register_missing_in_vs_2_0(self):
        # p0 exists from vs_2_x on; vs_2_0 cannot predicate.
        data = blob(VS20, ins(O.MOV, 3, extra=BITS.PREDICATED), dst(R.TEMP, 0), src(R.PREDICATE, 0), src(R.INPUT, 0), END)
        expect_error(data, RegisterError, 12, "PREDICATE", "vs_2_0")


# --------------------------------------------------------------------------
# Stream structure: comments, END, trailing data
# --------------------------------------------------------------------------


class TestStructure:
    def test_comment_runs_past_the_end(self):
        data = blob(PS20, 0x0005FFFE, 0x41414141, END)
        expect_error(data, CommentOverrunError, 4, "5 DWORDs", "2 DWORDs remain")

    def test_largest_comment_size_on_a_short_stream(self):
        data = blob(PS20, 0x7FFFFFFE, END)
        expect_error(data, CommentOverrunError, 4, "32767 DWORDs")

    def test_missing_end(self):
        data = GOOD["ps_2_0 mov"][:-4]
        expect_error(data, MissingEndError, 16, "without an END token")

    def test_version_token_alone(self):
        expect_error(blob(VS30), MissingEndError, 4, "END")

    def test_comment_swallows_the_end_token(self):
        data = blob(PS20, 0x0001FFFE, END)
        expect_error(data, MissingEndError, 12, "END")

    def test_data_after_end(self):
        data = GOOD["ps_2_0 mov"] + blob(0)
        expect_error(data, TrailingDataError, 20, "4 bytes follow the END token")

    def test_ragged_data_after_end(self):
        data = GOOD["ps_2_0 mov"] + b"\x01"
        expect_error(data, TrailingDataError, 20, "1 byte follow")


class TestCtab:
    # Wine's shader_with_invalid_ctab: a CTAB comment too short for the
    # 28-byte header, which D3DX refuses (D3DXERR_INVALIDDATA).
    BAD_CTAB = blob(VS30, 0x0005FFFE, 0x42415443, 0x1C, 0xA9, VS30, 0, 0, END)

    def test_strict_ctab_rejects_a_malformed_table(self):
        # The payload starts at byte 12, after the comment token and FourCC.
        expect_error(self.BAD_CTAB, CtabError, 12, "16 bytes", "28-byte header", strict_ctab=True)

    def test_by_default_a_malformed_table_is_dropped_with_a_diagnostic(self):
        # The runtime never reads the CTAB, so the shader itself stays usable.
        shader = decode(self.BAD_CTAB)
        assert shader.ctab is None
        assert len(shader.diagnostics) == 1
        assert "constant table" in shader.diagnostics[0] and "28-byte header" in shader.diagnostics[0]
        assert encode(shader) == self.BAD_CTAB
