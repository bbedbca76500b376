"""Fixtures shared by the verification tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def vkr():
    """The process's Vulkan (lavapipe) runner; the test skips with the reason when there is none."""
    from xlate.verify import vk

    try:
        return vk.runner()
    except vk.VulkanUnavailable as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def wgr():
    """The process's WebGPU (wgpu-native on lavapipe) runner; the test skips with the reason when there is none."""
    from xlate.verify import wgpu_runner

    try:
        return wgpu_runner.runner()
    except wgpu_runner.WGPUUnavailable as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def gl():
    """The process's GL (llvmpipe) runner; the test skips with the reason when there is none."""
    from xlate.verify import gl as glmod

    try:
        return glmod.runner()
    except glmod.GLUnavailable as e:
        pytest.skip(str(e))
