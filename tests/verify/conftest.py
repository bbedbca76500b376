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
