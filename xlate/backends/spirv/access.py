"""How the SPIR-V emitter (``emitter.Emitter``) reaches a variable: the
interface place of a layout name, the access chain's indices for an element
or a dynamic index, and, for a constant register's first load, the chain
ready-made (``register_chain``)."""

from __future__ import annotations

from ...ir.ops import Op
from .. import layout as layout_mod
from .interface import Place
from .module import OP

FILES = layout_mod.FILE_BINDING
OpAccessChain, OpIAdd = OP["OpAccessChain"], OP["OpIAdd"]


class Access:
    """Mixin of ``Emitter``: uses its ``lay``, ``iface``, ``m``, ``int``,
    ``static``, ``pointers`` and ``inst``/``unsupported``."""

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

    def register_chain(self, var, element: int):
        """``load``'s ready-made chain to register ``element`` of the
        constant file ``var`` (what ``_access`` and ``load`` work out for it,
        the constants made in the same order), or None where ``load``'s
        general path has to (a bool kept as a uint, a register outside the
        layout's groups)."""
        g = self.lay.group_at(var, element)
        if g is None:
            return None
        place = self.iface.places[g.name]
        if place.uint_bool:
            return None
        m = self.m
        member = place.member
        # int_constant's ids, looked up here first (most exist already)
        constants, t = m.constants, self.int
        if member is None:
            chain = ()
        else:
            c = constants.get((t, member))
            chain = (c if c is not None else m.int_constant(member),)
        if g.array:
            c = constants.get((t, element - g.first))
            chain += (c if c is not None else m.int_constant(element - g.first),)
        if not chain:
            return None
        pointee = place.element_type if g.array and place.element_type is not None else place.value_type
        return (((4 + len(chain)) << 16) | OpAccessChain, m.pointer(place.storage, pointee), place.var, chain,
                pointee)
