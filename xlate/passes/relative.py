"""Dynamic indices (``c[a0.x + 3]``, vs_3_0 ``v[aL]`` / ``o[aL]``, ps_3_0 ``v[aL]``).

Two shapes come out of lifting (docs/ir.md):

(a) A LOAD with an index arg on an *array* variable (the c#, i#, b# files)
    reads element ``imm[0] + index``.  D3D9 reads of a register outside the
    file give 0 (D3D9_SEMANTICS 6.1), GLSL/SPIR-V out-of-bounds reads are
    undefined, so every such read becomes

        eff = index + base;  ok = eff >= 0 && eff < length
        value = SELECT(ok, LOAD array[SELECT(ok, eff, 0)], 0)

    and the array gets the length of the register file the API can set at
    run time (``FILE_SIZES`` below), not just the highest register the
    shader names: an indexed read may land anywhere in it.

(b) A LOAD/STORE with an index arg on a *register* variable means "the
    register file of that variable, element = its register number + index".
    Each such file becomes one LOCAL array:
    - inputs: main first copies every register of the file into the array
      (0 where no register is declared); indexed reads read the array
      (guarded as above), direct reads keep reading the input;
    - outputs: every access to the file, direct or indexed, in every
      function, goes to the array (masks kept: ``o[aL].xy`` leaves zw of
      that element alone); main zeroes the array first and copies it to the
      output variables at its end and before each of its RETURNs.
    Indexed stores are guarded too: out of range, the store rewrites
    element 0 with its own value (``SELECT(ok, new, old)``), a no-op.

Notes set: ``dynamic_arrays`` = names of the array variables that are
dynamically indexed after this pass (constant files and the new locals).
"""

from __future__ import annotations

from ..bytecode.tables import ShaderVersion
from ..ir.ops import Code, Op
from ..ir.program import Program, Storage, Variable
from ..ir.types import B1, F4, I1, Scalar, Type
from ..ir.validate import index_range
from ..options import Options
from .rewrite import Rewriter, rewrite

CONST_FILES = (Storage.FLOAT_CONST, Storage.INT_CONST, Storage.BOOL_CONST)


def file_size(version: ShaderVersion, storage: Storage) -> int:
    """Registers of a file the runtime provides (D3D9_SEMANTICS 1.12).

    | file     | vs (hw) | vs_*_sw | ps_3_x | ps_2_x | ps_1_x |
    |----------|---------|---------|--------|--------|--------|
    | c#       | 256     | 8192    | 224    | 32     | 8      |
    | i#, b#   | 16      | 2048    | 16     | 16     | 16     |
    | v# in    | 16      | 16      | 10     | -      | -      |
    | o# out   | 12 (vs_3_0)                                  |

    vs c#: the docs promise >= 256 from vs_2_0 (96 for vs_1_1); 256 is what
    every runtime since exposes (DXVK, wined3d).  ps_*_sw (refrast) gets the
    hardware numbers of its major version.
    """
    sw_vs = version.is_vertex and version.is_sw
    if storage is Storage.FLOAT_CONST:
        if version.is_vertex:
            return 8192 if sw_vs else 256
        return {3: 224, 2: 32}.get(version.major, 8)
    if storage in (Storage.INT_CONST, Storage.BOOL_CONST):
        return 2048 if sw_vs else 16
    if storage is Storage.INPUT:
        return 16 if version.is_vertex else 10
    if storage is Storage.OUTPUT:
        return 12
    raise ValueError(f"no register file size for {storage}")


# Enum members used for every dynamic access, as module constants: ``Code.X``
# is an attribute lookup through the enum's metaclass (some 0.1-0.2 us).
_CONST, _IADD, _IGE, _ILT, _BAND, _SELECT, _LOAD, _STORE, _SWIZZLE = (
    Code.CONST, Code.IADD, Code.IGE, Code.ILT, Code.BAND, Code.SELECT, Code.LOAD, Code.STORE, Code.SWIZZLE)
_INPUT, _OUTPUT = Storage.INPUT, Storage.OUTPUT
_BOOL, _INT = Scalar.BOOL, Scalar.INT


def zero(rw: Rewriter, type: Type) -> Op:
    scalar = type.scalar
    value = False if scalar is _BOOL else (0 if scalar is _INT else 0.0)
    return rw.emit(_CONST, type, imm=(value,) * type.width)


def guard(rw: Rewriter, index: Op, base: int, length: int) -> tuple[Op, Op]:
    """(in_range b1, clamped effective index i1) for element ``base + index``."""
    eff = index
    if base:
        eff = rw.emit(_IADD, I1, (index, rw.emit(_CONST, I1, imm=(base,))))
    low = rw.emit(_IGE, B1, (eff, rw.emit(_CONST, I1, imm=(0,))))
    high = rw.emit(_ILT, B1, (eff, rw.emit(_CONST, I1, imm=(length,))))
    ok = rw.emit(_BAND, B1, (low, high))
    clamped = rw.emit(_SELECT, I1, (ok, eff, rw.emit(_CONST, I1, imm=(0,))))
    return ok, clamped


def in_bounds(index: Op, base: int, length: int) -> bool:
    lo, hi = index_range(index)
    return lo is not None and hi is not None and base + lo >= 0 and base + hi < length


def guarded_load(rw: Rewriter, var: Variable, base: int, index: Op) -> Op:
    """The value of ``var[base + index]``, 0 when that is outside the array."""
    if in_bounds(index, base, var.length):
        return rw.emit(_LOAD, var.type, (index,), (base,), var)
    ok, clamped = guard(rw, index, base, var.length)
    value = rw.emit(_LOAD, var.type, (clamped,), (0,), var)
    return rw.emit(_SELECT, var.type, (ok, value, zero(rw, var.type)))


def guarded_store(rw: Rewriter, var: Variable, base: int, index: Op, value: Op, mask: int) -> None:
    """``var[base + index].mask = value``; nothing happens out of range."""
    if in_bounds(index, base, var.length):
        rw.emit(_STORE, None, (value, index), (mask, base), var)
        return
    ok, clamped = guard(rw, index, base, var.length)
    old = rw.emit(_LOAD, var.type, (clamped,), (0,), var)
    comps = tuple(c for c in range(var.type.width) if mask >> c & 1)
    if len(comps) != var.type.width:
        old = rw.emit(_SWIZZLE, var.type.with_width(len(comps)), (old,), comps)
    kept = rw.emit(_SELECT, value.type, (ok, value, old))
    rw.emit(_STORE, None, (kept, clamped), (mask, 0), var)


def _index_of(op: Op) -> Op | None:
    if op.code is _LOAD:
        return op.args[0] if op.args else None
    return op.args[1] if len(op.args) > 1 else None


def _indexed(program: Program) -> list[Op]:
    """The LOADs and STOREs with a dynamic index, in program order."""
    LOAD, STORE = Code.LOAD, Code.STORE
    return [op for fn in program.functions.values() for op in fn.body
            if ((code := op.code) is LOAD and op.args) or (code is STORE and len(op.args) > 1)]


def _file_key(var: Variable):
    return (var.storage, var.register[0]) if var.register is not None and var.length is None else None


class _RegisterFile:
    """One dynamically indexed register file and the local array standing for it."""

    def __init__(self, program: Program, key, members: list[Variable]):
        storage, rtype = key
        self.storage = storage
        self.members = sorted(members, key=lambda v: v.register[1])
        size = max([file_size(program.version, storage)] + [v.register[1] + 1 for v in members])
        prefix = "v" if storage is Storage.INPUT else "o"
        self.array = program.new_local(f"{prefix}_file", F4, size)
        self.number = {id(v): v.register[1] for v in members}

    def widen(self, rw: Rewriter, value: Op) -> Op:
        """An f1 register value as the f4 element holding it in x."""
        if value.type.width == 4:
            return value
        pad = rw.emit(Code.CONST, F4.with_width(4 - value.type.width), imm=(0.0,) * (4 - value.type.width))
        return rw.emit(Code.CONSTRUCT, F4, (value, pad))

    def prologue(self, rw: Rewriter) -> None:
        by_number = {v.register[1]: v for v in self.members}
        for n in range(self.array.length):
            var = by_number.get(n) if self.storage is Storage.INPUT else None
            if var is not None:
                value = self.widen(rw, rw.emit(Code.LOAD, var.type, var=var))
            else:
                value = zero(rw, F4)
            rw.emit(Code.STORE, None, (value,), (0xF, n), self.array)

    def epilogue(self, rw: Rewriter) -> None:
        for var in self.members:
            value = rw.emit(Code.LOAD, F4, (), (var.register[1],), self.array)
            if var.type.width != 4:
                value = rw.emit(Code.SWIZZLE, var.type, (value,), tuple(range(var.type.width)))
            rw.emit(Code.STORE, None, (value,), ((1 << var.type.width) - 1,), var)


def run(program: Program, options: Options, indexed: list[Op] | None = None) -> None:
    """``indexed``: the LOADs and STOREs with a dynamic index, when the
    caller knows them already (``passes.Survey`` knows when there is none);
    else found by a walk over every op."""
    if indexed is None:
        indexed = _indexed(program)
    if not indexed:  # most shaders: nothing to lower, guard or size
        program.notes["dynamic_arrays"] = set()
        return
    files = _lower_register_files(program, indexed)
    _guard_arrays(program, indexed)
    dynamic = {f.array.name for f in files}
    dynamic.update(op.var.name for op in _indexed(program) if op.var is not None and op.var.length is not None)
    program.notes["dynamic_arrays"] = dynamic


def _lower_register_files(program: Program, indexed: list[Op]) -> list[_RegisterFile]:
    keys = {_file_key(op.var) for op in indexed if op.var is not None}
    keys.discard(None)
    if not keys:
        return []
    files = []
    owner: dict[int, _RegisterFile] = {}
    for key in sorted(keys, key=lambda k: (k[0].value, k[1])):
        members = [v for v in program.variables if _file_key(v) == key]
        reg_file = _RegisterFile(program, key, members)
        files.append(reg_file)
        for v in members:
            owner[id(v)] = reg_file
    outputs = [f for f in files if f.storage is Storage.OUTPUT]

    def load(rw: Rewriter, op: Op):
        f = owner.get(id(op.var))
        index = _index_of(op)
        if f is None or (index is None and f.storage is _INPUT):
            return rw.keep(op)
        base = f.number[id(op.var)]
        if index is None:
            value = rw.emit(_LOAD, F4, (), (base,), f.array)
        else:
            value = guarded_load(rw, f.array, base, index)
        if op.type.width != 4:
            value = rw.emit(_SWIZZLE, op.type, (value,), tuple(range(op.type.width)))
        return value

    def store(rw: Rewriter, op: Op):
        f = owner.get(id(op.var))
        if f is None or f.storage is not _OUTPUT:
            # an indexed store to an input file is a D3D error the decoder
            # rejects; leave anything else for the validator to name
            rw.keep(op)
            return None
        base, index, value, mask = f.number[id(op.var)], _index_of(op), op.args[0], op.imm[0]
        if op.var.type.width != 4:  # a scalar register is the x of its element
            mask = 0x1
        if index is None:
            rw.emit(_STORE, None, (value,), (mask, base), f.array)
        else:
            guarded_store(rw, f.array, base, index, value, mask)
        return None

    def ret(rw: Rewriter, op: Op):
        if rw.fn.name == "main":
            for f in outputs:
                f.epilogue(rw)
        rw.keep(op)
        return None

    rewrite(program, {Code.LOAD: load, Code.STORE: store, Code.RETURN: ret})
    main = program.main
    rw = Rewriter(program, main)
    for f in files:
        f.prologue(rw)
    main.body[:0] = rw.out
    rw = Rewriter(program, main)
    for f in outputs:
        f.epilogue(rw)
    main.body.extend(rw.out)
    return files


def ctab_extent(program: Program, storage: Storage) -> int | None:
    """One past the highest register the CTAB gives a variable of this file,
    or None without a CTAB (or without entries for the file)."""
    ctab = program.ctab
    if ctab is None:
        return None
    wanted = {Storage.FLOAT_CONST: "FLOAT4", Storage.INT_CONST: "INT4", Storage.BOOL_CONST: "BOOL"}[storage]
    ends = [c.register_index + c.register_count for c in ctab.constants
            if getattr(c.register_set, "name", None) == wanted]
    return max(ends) if ends else None


def dynamic_size(program: Program, storage: Storage) -> int:
    """How many registers of a dynamically indexed constant file to keep.

    The whole runtime file, except in the software vertex profiles: their
    8192 float (2048 int/bool) registers fit no GPU's uniform storage (GL
    guarantees 256 vec4; llvmpipe has 4096), so when the compiler's CTAB is
    there the file is cut after the last register it allocated.  A dynamic
    read past the CTAB's variables is an out-of-bounds HLSL array read
    (undefined in HLSL); here it reads 0, as reads past the file do.  The cut
    is reported in ``notes["bounded_files"]`` for diagnostics.
    """
    size = file_size(program.version, storage)
    if program.version.is_vertex and program.version.is_sw:
        extent = ctab_extent(program, storage)
        if extent is not None and extent < size:
            program.notes.setdefault("bounded_files", {})[storage.value] = (size, extent)
            program.notes.setdefault("diagnostics", []).append(
                f"{program.version}: the dynamically indexed {storage.value} file keeps the {extent} registers "
                f"its constant table allocates, not all {size}; reads past them give 0")
            return extent
    return size


def _guard_arrays(program: Program, indexed: list[Op]) -> None:
    """(a): size the dynamically indexed constant files, guard every dynamic access.

    ``indexed``: the dynamically indexed LOADs and STOREs before the register
    files were lowered (the LOADs of constant files are still those)."""
    sizes: dict[Storage, int] = {}
    for op in indexed:
        var = op.var
        if op.code is _LOAD and var is not None and var.storage in CONST_FILES:
            if var.storage not in sizes:
                sizes[var.storage] = dynamic_size(program, var.storage)
            var.length = max(var.length or 0, sizes[var.storage])

    def load(rw: Rewriter, op: Op):
        if op.var.length is None or not op.args or in_bounds(op.args[0], op.imm[0], op.var.length):
            return rw.keep(op)
        return guarded_load(rw, op.var, op.imm[0], op.args[0])

    def store(rw: Rewriter, op: Op):
        if op.var.length is None or len(op.args) < 2 or in_bounds(op.args[1], op.imm[1], op.var.length):
            rw.keep(op)
            return None
        guarded_store(rw, op.var, op.imm[1], op.args[1], op.args[0], op.imm[0])
        return None

    rewrite(program, {Code.LOAD: load, Code.STORE: store})
