"""Imported by the pool's forkserver process (``set_forkserver_preload``):
warms up every entry point there once, so that the workers forked from it
start at once, as forked workers do (see ``pool.start_method``)."""

from .pool import warm_up

warm_up("effect")  # the shader seeds, the effect seeds and convert: every entry point's needs
