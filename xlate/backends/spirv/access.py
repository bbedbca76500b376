"""How the SPIR-V emitter (``emitter.Emitter``) reaches a variable: the
interface place of a layout name, the access chain's indices for an element
or a dynamic index, and, for a constant register's first load, the chain
written ready-made (``register_load``); ``load`` and ``store``, the handlers of the
loads and stores the emitter's op loop does not write itself."""

from __future__ import annotations

from ...ir.ops import Op
from ...ir.program import Storage
from .. import layout as layout_mod
from .interface import Place
from .module import CONSTANT_HEAD, OP

FILES = layout_mod.FILE_BINDING
LOAD_HEAD = (4 << 16) | OP["OpLoad"]
_STATE = Storage.STATE
(OpAccessChain, OpIAdd, OpLoad, OpStore, OpCompositeExtract, OpCompositeInsert, OpVectorShuffle,
 OpINotEqual) = (OP[n] for n in ("OpAccessChain", "OpIAdd", "OpLoad", "OpStore", "OpCompositeExtract",
                                 "OpCompositeInsert", "OpVectorShuffle", "OpINotEqual"))


def _mask_select(width: int, mask: int) -> tuple[int, ...]:
    """OpVectorShuffle's components for ``old`` (width components) with
    the masked ones taken, in order, from the stored value."""
    sel, k = [], 0
    for i in range(width):
        if mask >> i & 1:
            sel.append(width + k)
            k += 1
        else:
            sel.append(i)
    return tuple(sel)


# [width][mask] -> _mask_select(width, mask); mask -> its one component, or None
MASK_SELECT = [None, None] + [{mask: _mask_select(w, mask) for mask in range(1, 1 << w)} for w in (2, 3, 4)]
SINGLE = {mask: (mask.bit_length() - 1 if mask and not mask & (mask - 1) else None) for mask in range(16)}



class Access:
    """Mixin of ``Emitter``: uses its ``lay``, ``iface``, ``m``, ``int``,
    ``float``, ``static``, ``pointers``, ``plain``, ``chains``, ``groups``,
    ``known``, ``ids``, ``words`` and ``inst``/``value``/``type_of``/``unsupported``."""

    __slots__ = ()

    def access(self, op: Op, element, index: int | None) -> tuple[Place, list[int], str]:
        """The place of ``op.var`` (element ``element``, plus the dynamic
        index id ``index``): its Place, the access chain's index ids and the
        layout's component suffix ("" or ".x").  Static accesses are
        remembered (their chains hold only module-level constants)."""
        if index is None:
            key = (op.var, element)
            found = self.static.get(key)
            if found is None:
                found = self.static[key] = self._access(op, element, None)
            return found
        return self._access(op, element, index)

    def _access(self, op: Op, element, index: int | None) -> tuple[Place, list[int], str]:
        var = op.var
        lay = self.lay
        if index is None and element is not None and var.storage in FILES:
            g = lay.group_at(var, element)
            if g is not None:
                place = self.iface.places[g.name]
                chain = [self.member(place)] if place.member is not None else []
                if g.array:
                    chain.append(self.m.int_constant(element - g.first))
                return place, chain, ""
        acc = lay.access.get(id(var))
        if acc is None:
            raise self.unsupported(op, f"{var.name} has no place in the layout")
        place = self.iface.places.get(acc.name)
        if place is None:
            place = self.iface.builtin(acc.name)
        chain = [self.member(place)] if place.member is not None else []
        if acc.array:
            offset = (element or 0) - acc.base
            if index is None:
                chain.append(self.m.int_constant(offset))
            elif offset:
                chain.append(self.inst(OpIAdd, self.int, index, self.m.int_constant(offset)))
            else:
                chain.append(index)
        elif index is not None:
            raise self.unsupported(op, f"dynamic index on {var.name}, which is not an array (relative pass missing?)")
        return place, chain, acc.component

    def member(self, place: Place) -> int:
        return self.m.int_constant(place.member)

    def pointer(self, place: Place, chain: list[int], pointee: int) -> int:
        if not chain:
            return place.var
        key = (place.storage, pointee)
        ptr = self.pointers.get(key)
        if ptr is None:
            ptr = self.pointers[key] = self.m.pointer(place.storage, pointee)
        return self.inst(OpAccessChain, ptr, place.var, *chain)

    def register_load(self, key: tuple) -> int | None:
        """A constant register's first load (``key`` = (constant file,
        element)): its access chain and OpLoad written, the chain kept in
        ``chains`` (a later block loads it again) and the value in ``known``
        (this block reads it again); returns the value's id, or None where
        ``load``'s general path has to (a bool kept as a uint, a register
        outside the layout's groups).  The constants are made in ``_access``
        and ``load``'s order (the same ids).  What a group's registers share
        (its place, the member's constant, the pointer type) is worked out
        on the group's first register and kept in ``groups`` (id(group) ->
        that, or False)."""
        var, element = key
        g = self.lay.group_at(var, element)
        if g is None:
            return None
        m = self.m
        constants, t = m.constants, self.int
        shared = self.groups.get(id(g))
        if shared is None:
            place = self.iface.places[g.name]
            if place.uint_bool:
                self.groups[id(g)] = False
                return None
            # the member's constant, then the element's, then the pointer
            # type: _access and load's order (the same ids)
            member = place.member
            if member is None:
                prefix = ()
            else:
                c = constants.get((t, member))
                prefix = (c if c is not None else m.int_constant(member),)
            chain = prefix
            if g.array:
                c = constants.get((t, element - g.first))
                chain += (c if c is not None else m.int_constant(element - g.first),)
            if not chain:
                self.groups[id(g)] = False
                return None
            pointee = place.element_type if g.array and place.element_type is not None else place.value_type
            head = ((4 + len(chain)) << 16) | OpAccessChain
            base = place.var
            ptr = m.pointer(place.storage, pointee)
            self.groups[id(g)] = (head, ptr, base, prefix, pointee, g.array, g.first)
        elif shared is False:
            return None
        else:
            head, ptr, base, chain, pointee, array, first = shared
            if array:
                index = (t, element - first)
                c = constants.get(index)
                if c is None:  # (Module.int_constant's words: most elements are new constants)
                    c = constants[index] = m.bound
                    m.bound = c + 1
                    m.globals += (CONSTANT_HEAD, t, c, index[1])
                chain += (c,)
        self.chains[key] = (head, ptr, base, chain, pointee)
        r = m.bound
        m.bound = r + 2
        self.words += (head, ptr, r, base, *chain, LOAD_HEAD, pointee, r + 1, r)
        self.known[key] = r + 1
        return r + 1

    # -- loads and stores -------------------------------------------------------

    def member_pointer(self, chain: tuple) -> int:
        """A new pointer to a block member (gl_Position): ``chain`` is its
        OpAccessChain's words but the result id (``Emitter.plain``'s).  Made
        per load or store, as SPIR-V wants a pointer in the block it is used."""
        m = self.m
        ptr = m.bound
        m.bound = ptr + 1
        head, ptr_type, base, member = chain
        self.words += (head, ptr_type, ptr, base, member)
        return ptr

    def load(self, op: Op) -> None:
        if not op.args and not op.imm:  # the common load: a whole register, without a call
            var = op.var
            known = self.known.get(var)
            if known is not None:  # read or written before in this block: that value
                self.ids[op] = known
                return
            found = self.plain.get(var)
            if found is not None:
                ptr, pointee, scalar, _, chain = found
                if chain is not None:
                    ptr = self.member_pointer(chain)
                m = self.m
                r = m.bound
                if scalar:  # an IR scalar in .x of a vec4
                    m.bound = r + 2
                    self.words += ((4 << 16) | OpLoad, pointee, r, ptr,
                                   (5 << 16) | OpCompositeExtract, self.float, r + 1, r, 0)
                    self.ids[op] = self.known[var] = r + 1
                else:
                    m.bound = r + 1
                    self.words += ((4 << 16) | OpLoad, pointee, r, ptr)
                    self.ids[op] = self.known[var] = r
                return
        if op.var.storage is _STATE:  # a specialization constant (layout._state_parameter)
            self.ids[op] = self.iface.places[self.lay.access[id(op.var)].name].var
            return
        args = op.args
        if not args:  # a static element (a constant register ...): its access chain, ready-made
            key = (op.var, op.imm[0] if op.imm else None)
            known = self.known.get(key)
            if known is not None:  # a read-only element read before in this block
                self.ids[op] = known
                return
            ready = self.chains.get(key)
            if ready is None and key[1] is not None and op.var.storage in FILES:
                v = self.register_load(key)
                if v is not None:
                    self.ids[op] = v
                    return
            if ready is None:
                place, chain, component = self.access(op, key[1], None)
                arrayed = place.element_type is not None and len(chain) > (place.member is not None)
                pointee = place.element_type if arrayed else place.value_type
                ready = None
                if chain and not place.uint_bool and not component:
                    ready = self.chains[key] = (((4 + len(chain)) << 16) | OpAccessChain,
                                                self.m.pointer(place.storage, pointee), place.var, tuple(chain),
                                                pointee)
            if ready is not None:
                head, ptr_type, var, chain, pointee = ready
                m = self.m
                r = m.bound
                m.bound = r + 2
                self.words += (head, ptr_type, r, var, *chain, (4 << 16) | OpLoad, pointee, r + 1, r)
                self.ids[op] = r + 1
                if op.var.storage in FILES:  # a constant register: read-only
                    self.known[key] = r + 1
                return
        index = self.value(args[0]) if args else None
        place, chain, component = self.access(op, op.imm[0] if op.imm else None, index)
        if place.sampler_dim is not None:
            raise self.unsupported(op, f"the sampler {op.var.name} is read as a value (only texture "
                                       "instructions can use a sampler register)")
        arrayed = place.element_type is not None and len(chain) > (place.member is not None)
        pointee = place.element_type if arrayed else place.value_type
        v = self.inst(OpLoad, pointee, self.pointer(place, chain, pointee))
        t = op.type
        if place.uint_bool:
            m = self.m
            zero = m.uint_constant(0)
            if t.width > 1:
                zero = m.composite_constant(m.vector(m.int(False), t.width), (zero,) * t.width)
            v = self.inst(OpINotEqual, self.type_of(t), v, zero)
        if component:
            v = self.inst(OpCompositeExtract, self.type_of(t), v, 0)
        self.ids[op] = v

    def store(self, op: Op) -> None:
        args = op.args
        imm = op.imm
        var = op.var
        value_type = args[0].type
        if value_type.scalar is not var.type.scalar:  # e.g. a hostile setp into r#
            raise self.unsupported(op, f"a {value_type} value stored into {var.name} ({var.type})")
        if len(args) == 1 and len(imm) < 2:  # the common store: a whole register, written whole
            found = self.plain.get(var)
            if found is not None and found[3] and not found[2]:
                ptr, pointee, _, _, chain = found
                width = var.type.width
                full = (1 << width) - 1
                mask = (imm[0] if imm else 0xF) & full
                value = self.ids[args[0]]
                if chain is not None:
                    ptr = self.member_pointer(chain)
                m = self.m
                if width == 1 or mask == full:
                    self.words += ((3 << 16) | OpStore, ptr, value)
                    if value_type.width == width:
                        self.known[var] = value
                    else:
                        self.known.pop(var, None)
                    return
                # a write mask: put the new components into the old value (the
                # one this block read or wrote, else a load), store
                known = self.known
                old = known.get(var)
                if old is None:
                    old = m.bound
                    m.bound = old + 1
                    self.words += ((4 << 16) | OpLoad, pointee, old, ptr)
                r = m.bound
                m.bound = r + 1
                single = SINGLE[mask]
                if single is not None and value_type.width == 1:
                    self.words += ((6 << 16) | OpCompositeInsert, pointee, r, value, old, single,
                                   (3 << 16) | OpStore, ptr, r)
                else:
                    sel = MASK_SELECT[width][mask]
                    self.words += (((5 + len(sel)) << 16) | OpVectorShuffle, pointee, r, old, value, *sel,
                                   (3 << 16) | OpStore, ptr, r)
                known[var] = r
                return
        self.known.pop(var, None)
        value = self.value(args[0])
        index = self.value(args[1]) if len(args) > 1 else None
        var = op.var
        place, chain, component = self.access(op, imm[1] if len(imm) > 1 else None, index)
        m = self.m
        if place.storage in ("Uniform", "UniformConstant", "Input"):
            raise self.unsupported(op, f"a store to {var.name}, which is read-only")
        arrayed = place.element_type is not None and len(chain) > (place.member is not None)
        pointee = place.element_type if arrayed else place.value_type
        if component:  # an IR scalar kept in .x of a vec4
            chain = chain + [m.int_constant(0)]
            pointee = self.float
        width = 1 if component else var.type.width
        mask = (imm[0] if imm else 0xF) & ((1 << width) - 1)
        ptr = self.pointer(place, chain, pointee)
        full = (1 << width) - 1
        if width > 1 and mask != full:
            old = self.inst(OpLoad, pointee, ptr)
            written = [i for i in range(width) if mask >> i & 1]
            if len(written) == 1 and args[0].type.width == 1:
                value = self.inst(OpCompositeInsert, pointee, value, old, written[0])
            else:
                value = self.inst(OpVectorShuffle, pointee, old, value, *_mask_select(width, mask))
        m.put(self.words, OpStore, ptr, value)
