"""The Vulkan runner's device (``vk``): the instance and device (one per
process, ``device()``), buffers and images, and the render targets.  Split
from ``vk.py``; its public names are re-exported there."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .drivers import note_started

F32 = np.float32
FORMAT = "VK_FORMAT_R32G32B32A32_SFLOAT"


class VulkanUnavailable(RuntimeError):
    """No Vulkan here (no bindings, no loader, no device): tests skip with this message."""


def _vk():
    try:
        import vulkan
    except Exception as exc:  # noqa: BLE001 - OSError (no libvulkan.so.1), ImportError, cffi errors
        raise VulkanUnavailable(
            f"no Vulkan: the 'vulkan' Python package could not load ({type(exc).__name__}: {exc}); "
            "install Debian mesa-vulkan-drivers libvulkan1 and pip vulkan") from exc
    return vulkan


# --------------------------------------------------------------------------
# Instance, device, memory, one-shot command submission
# --------------------------------------------------------------------------


class _Buffer:
    def __init__(self, dev: "_Device", size: int, usage: int):
        vk = dev.vk
        self.dev, self.size = dev, max(int(size), 16)
        self.handle = vk.vkCreateBuffer(dev.device, vk.VkBufferCreateInfo(
            size=self.size, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None)
        req = vk.vkGetBufferMemoryRequirements(dev.device, self.handle)
        self.memory = dev.allocate(req, host=True)
        vk.vkBindBufferMemory(dev.device, self.handle, self.memory, 0)
        self.mapped = vk.vkMapMemory(dev.device, self.memory, 0, self.size, 0)

    def write(self, data: bytes, offset: int = 0):
        self.mapped[offset:offset + len(data)] = data

    def read(self) -> bytes:
        return bytes(self.mapped)

    def release(self):
        vk = self.dev.vk
        vk.vkUnmapMemory(self.dev.device, self.memory)
        vk.vkDestroyBuffer(self.dev.device, self.handle, None)
        vk.vkFreeMemory(self.dev.device, self.memory, None)


class _Image:
    """An RGBA32F image (2D, cube or 3D), always in VK_IMAGE_LAYOUT_GENERAL."""

    def __init__(self, dev: "_Device", kind: str, width: int, height: int, depth: int = 1, levels: int = 1,
                 usage: int = 0):
        vk = dev.vk
        self.dev, self.kind, self.width, self.height, self.depth, self.levels = dev, kind, width, height, depth, levels
        self.layers = 6 if kind == "cube" else 1
        image_type = vk.VK_IMAGE_TYPE_3D if kind == "volume" else vk.VK_IMAGE_TYPE_2D
        self.handle = vk.vkCreateImage(dev.device, vk.VkImageCreateInfo(
            flags=vk.VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT if kind == "cube" else 0,
            imageType=image_type, format=dev.format, extent=vk.VkExtent3D(width, height, depth),
            mipLevels=levels, arrayLayers=self.layers, samples=vk.VK_SAMPLE_COUNT_1_BIT,
            tiling=vk.VK_IMAGE_TILING_OPTIMAL, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE,
            initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None)
        self.memory = dev.bind_image_general(self.handle, self.range())

    def range(self, base_level: int = 0):
        vk = self.dev.vk
        return vk.VkImageSubresourceRange(aspectMask=vk.VK_IMAGE_ASPECT_COLOR_BIT, baseMipLevel=base_level,
                                          levelCount=self.levels - base_level, baseArrayLayer=0,
                                          layerCount=self.layers)

    def view(self, base_level: int = 0):
        vk = self.dev.vk
        view_type = {"2d": vk.VK_IMAGE_VIEW_TYPE_2D, "cube": vk.VK_IMAGE_VIEW_TYPE_CUBE,
                     "volume": vk.VK_IMAGE_VIEW_TYPE_3D}[self.kind]
        return vk.vkCreateImageView(self.dev.device, vk.VkImageViewCreateInfo(
            image=self.handle, viewType=view_type, format=self.dev.format,
            components=vk.VkComponentMapping(*[vk.VK_COMPONENT_SWIZZLE_IDENTITY] * 4),
            subresourceRange=self.range(base_level)), None)

    def upload(self, levels: list[np.ndarray]):
        """Level data as ``Texture`` lays it out (cube: (6, h, w, 4); volume: (d, h, w, 4))."""
        vk, dev = self.dev.vk, self.dev
        blobs = [np.ascontiguousarray(a, dtype=F32).tobytes() for a in levels]
        staging = _Buffer(dev, sum(len(b) for b in blobs), vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT)
        regions, offset = [], 0
        for lvl, (a, blob) in enumerate(zip(levels, blobs)):
            staging.write(blob, offset)
            if self.kind == "volume":
                d, h, w = a.shape[:3]
            else:
                h, w = a.shape[-3:-1]
                d = 1
            regions.append(vk.VkBufferImageCopy(
                bufferOffset=offset, bufferRowLength=0, bufferImageHeight=0,
                imageSubresource=vk.VkImageSubresourceLayers(vk.VK_IMAGE_ASPECT_COLOR_BIT, lvl, 0, self.layers),
                imageOffset=vk.VkOffset3D(0, 0, 0), imageExtent=vk.VkExtent3D(w, h, d)))
            offset += len(blob)
        dev.submit(lambda cmd: (
            vk.vkCmdCopyBufferToImage(cmd, staging.handle, self.handle, vk.VK_IMAGE_LAYOUT_GENERAL,
                                      len(regions), regions),
            dev.barrier(cmd)))
        staging.release()

    def release(self):
        vk = self.dev.vk
        vk.vkDestroyImage(self.dev.device, self.handle, None)
        vk.vkFreeMemory(self.dev.device, self.memory, None)


class _DepthTexture:
    """A sampled depth texture (``Texture.format`` d16 / d24), for shadow
    compares: D16_UNORM, or D32_SFLOAT for d24 (X8_D24 is not a sampled
    format every device has; the compares the tests make do not see the
    finer steps).  Always in VK_IMAGE_LAYOUT_GENERAL."""

    def __init__(self, dev: "_Device", fmt: str, depth: np.ndarray):
        vk = dev.vk
        self.dev = dev
        self.format = vk.VK_FORMAT_D16_UNORM if fmt == "d16" else vk.VK_FORMAT_D32_SFLOAT
        h, w = depth.shape
        self.handle = vk.vkCreateImage(dev.device, vk.VkImageCreateInfo(
            imageType=vk.VK_IMAGE_TYPE_2D, format=self.format, extent=vk.VkExtent3D(w, h, 1), mipLevels=1,
            arrayLayers=1, samples=vk.VK_SAMPLE_COUNT_1_BIT, tiling=vk.VK_IMAGE_TILING_OPTIMAL,
            usage=vk.VK_IMAGE_USAGE_SAMPLED_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE, initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None)
        rng = vk.VkImageSubresourceRange(aspectMask=vk.VK_IMAGE_ASPECT_DEPTH_BIT, baseMipLevel=0, levelCount=1,
                                         baseArrayLayer=0, layerCount=1)
        self.memory = dev.bind_image_general(self.handle, rng)
        d = np.clip(np.asarray(depth, np.float64), 0, 1)
        blob = (np.round(d * 65535).astype(np.uint16) if fmt == "d16" else d.astype(F32)).tobytes()
        staging = _Buffer(dev, len(blob), vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT)
        staging.write(blob)
        region = vk.VkBufferImageCopy(
            bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
            imageSubresource=vk.VkImageSubresourceLayers(vk.VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1),
            imageOffset=vk.VkOffset3D(0, 0, 0), imageExtent=vk.VkExtent3D(w, h, 1))
        dev.submit(lambda cmd: (
            vk.vkCmdCopyBufferToImage(cmd, staging.handle, self.handle, vk.VK_IMAGE_LAYOUT_GENERAL, 1, [region]),
            dev.barrier(cmd)))
        staging.release()
        self.range = rng

    def view(self, base_level: int = 0):
        vk = self.dev.vk
        return vk.vkCreateImageView(self.dev.device, vk.VkImageViewCreateInfo(
            image=self.handle, viewType=vk.VK_IMAGE_VIEW_TYPE_2D, format=self.format,
            components=vk.VkComponentMapping(*[vk.VK_COMPONENT_SWIZZLE_IDENTITY] * 4),
            subresourceRange=self.range), None)

    def release(self):
        vk = self.dev.vk
        vk.vkDestroyImage(self.dev.device, self.handle, None)
        vk.vkFreeMemory(self.dev.device, self.memory, None)


class _DepthImage:
    """A D32_SFLOAT depth target, always in VK_IMAGE_LAYOUT_GENERAL."""

    def __init__(self, dev: "_Device", width: int, height: int):
        vk = dev.vk
        self.dev = dev
        self.handle = vk.vkCreateImage(dev.device, vk.VkImageCreateInfo(
            imageType=vk.VK_IMAGE_TYPE_2D, format=vk.VK_FORMAT_D32_SFLOAT, extent=vk.VkExtent3D(width, height, 1),
            mipLevels=1, arrayLayers=1, samples=vk.VK_SAMPLE_COUNT_1_BIT, tiling=vk.VK_IMAGE_TILING_OPTIMAL,
            usage=vk.VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT,
            sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE, initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None)
        self.memory = dev.bind_image_general(self.handle, self.range())
        self.view = vk.vkCreateImageView(dev.device, vk.VkImageViewCreateInfo(
            image=self.handle, viewType=vk.VK_IMAGE_VIEW_TYPE_2D, format=vk.VK_FORMAT_D32_SFLOAT,
            components=vk.VkComponentMapping(*[vk.VK_COMPONENT_SWIZZLE_IDENTITY] * 4),
            subresourceRange=self.range()), None)

    def range(self):
        vk = self.dev.vk
        return vk.VkImageSubresourceRange(aspectMask=vk.VK_IMAGE_ASPECT_DEPTH_BIT, baseMipLevel=0, levelCount=1,
                                          baseArrayLayer=0, layerCount=1)

    def release(self):
        vk = self.dev.vk
        vk.vkDestroyImageView(self.dev.device, self.view, None)
        vk.vkDestroyImage(self.dev.device, self.handle, None)
        vk.vkFreeMemory(self.dev.device, self.memory, None)


class _Device:
    """Instance, lavapipe (or the first) device, one queue, one command buffer."""

    def __init__(self):
        vk = self.vk = _vk()
        self.validation_errors: list[str] = []
        self._messenger = None
        layers, extensions = [], []
        want_validation = os.environ.get("XLATE_VK_VALIDATION", "") not in ("", "0")
        note_started("vulkan")
        try:
            have_layers = {p.layerName for p in vk.vkEnumerateInstanceLayerProperties()}
            if want_validation and "VK_LAYER_KHRONOS_validation" in have_layers:
                layers.append("VK_LAYER_KHRONOS_validation")
                extensions.append("VK_EXT_debug_utils")
            app = vk.VkApplicationInfo(pApplicationName="xlate-verify", applicationVersion=1, pEngineName="xlate",
                                       engineVersion=1, apiVersion=vk.VK_MAKE_VERSION(1, 2, 0))
            self.instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(
                pApplicationInfo=app, enabledLayerCount=len(layers), ppEnabledLayerNames=layers,
                enabledExtensionCount=len(extensions), ppEnabledExtensionNames=extensions), None)
        except Exception as exc:  # noqa: BLE001
            raise VulkanUnavailable(f"no Vulkan instance (libvulkan.so.1 / ICD missing?): "
                                    f"{type(exc).__name__}: {exc}") from exc
        if layers:
            self._install_messenger()
        devices = vk.vkEnumeratePhysicalDevices(self.instance)
        if not devices:
            raise VulkanUnavailable("no Vulkan device (install mesa-vulkan-drivers for lavapipe)")
        names = [vk.vkGetPhysicalDeviceProperties(d).deviceName for d in devices]
        pick = next((i for i, n in enumerate(names) if "llvmpipe" in n), 0)
        self.physical = devices[pick]
        self.name = names[pick]
        props = vk.vkGetPhysicalDeviceProperties(self.physical)
        self.output_locations = props.limits.maxVertexOutputComponents // 4
        if props.apiVersion < vk.VK_MAKE_VERSION(1, 2, 0):
            raise VulkanUnavailable(f"{self.name}: Vulkan {props.apiVersion >> 22}.{(props.apiVersion >> 12) & 1023}"
                                    " < 1.2")
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.physical)
        self.family = next(i for i, f in enumerate(families) if f.queueFlags & vk.VK_QUEUE_GRAPHICS_BIT)
        dev_exts = {e.extensionName for e in vk.vkEnumerateDeviceExtensionProperties(self.physical, None)}
        self.custom_border = "VK_EXT_custom_border_color" in dev_exts
        enable = ["VK_EXT_custom_border_color"] if self.custom_border else []
        # VK_EXT_transform_feedback (run_vertex): enabled only when the device has it
        self.transform_feedback: str | None = self._transform_feedback_missing(dev_exts)
        self.xfb_max_stride = 0
        if self.transform_feedback is None:
            enable.append("VK_EXT_transform_feedback")
            props = vk.VkPhysicalDeviceTransformFeedbackPropertiesEXT()
            vk.vkGetPhysicalDeviceProperties2(self.physical, vk.VkPhysicalDeviceProperties2(pNext=props))
            # one buffer of one stream: both limits apply to a vertex's record
            self.xfb_max_stride = min(props.maxTransformFeedbackBufferDataStride,
                                      props.maxTransformFeedbackStreamDataSize)
        features = vk.VkPhysicalDeviceFeatures(independentBlend=vk.VK_TRUE,
                                               shaderClipDistance=vk.VK_TRUE,
                                               largePoints=vk.VK_TRUE,
                                               fillModeNonSolid=vk.VK_FALSE)
        chain = vk.VkPhysicalDeviceVulkan12Features(samplerMirrorClampToEdge=vk.VK_TRUE)
        if self.custom_border:
            chain = vk.VkPhysicalDeviceCustomBorderColorFeaturesEXT(
                pNext=chain, customBorderColors=vk.VK_TRUE, customBorderColorWithoutFormat=vk.VK_TRUE)
        if self.transform_feedback is None:
            chain = vk.VkPhysicalDeviceTransformFeedbackFeaturesEXT(pNext=chain, transformFeedback=vk.VK_TRUE)
        queue_info = vk.VkDeviceQueueCreateInfo(queueFamilyIndex=self.family, queueCount=1, pQueuePriorities=[1.0])
        self.device = vk.vkCreateDevice(self.physical, vk.VkDeviceCreateInfo(
            pNext=chain, queueCreateInfoCount=1, pQueueCreateInfos=[queue_info],
            enabledExtensionCount=len(enable), ppEnabledExtensionNames=enable, pEnabledFeatures=features), None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.family, 0)
        self.memory_types = vk.vkGetPhysicalDeviceMemoryProperties(self.physical)
        self.pool = vk.vkCreateCommandPool(self.device, vk.VkCommandPoolCreateInfo(
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, queueFamilyIndex=self.family), None)
        self.cmd = vk.vkAllocateCommandBuffers(self.device, vk.VkCommandBufferAllocateInfo(
            commandPool=self.pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        self.fence = vk.vkCreateFence(self.device, vk.VkFenceCreateInfo(), None)
        self.format = vk.VK_FORMAT_R32G32B32A32_SFLOAT
        self.xfb = {}
        if self.transform_feedback is None:
            # extension commands come through vkGetDeviceProcAddr in the cffi bindings
            for name in ("vkCmdBindTransformFeedbackBuffersEXT", "vkCmdBeginTransformFeedbackEXT",
                         "vkCmdEndTransformFeedbackEXT"):
                self.xfb[name] = vk.vkGetDeviceProcAddr(self.device, name)

    def _transform_feedback_missing(self, dev_exts) -> str | None:
        """None when the device can capture vertex outputs, else why not."""
        vk = self.vk
        if "VK_EXT_transform_feedback" not in dev_exts:
            return f"{self.name} lacks VK_EXT_transform_feedback"
        feats = vk.VkPhysicalDeviceTransformFeedbackFeaturesEXT()
        vk.vkGetPhysicalDeviceFeatures2(self.physical, vk.VkPhysicalDeviceFeatures2(pNext=feats))
        if not feats.transformFeedback:
            return f"{self.name} has VK_EXT_transform_feedback without the transformFeedback feature"
        return None

    def _install_messenger(self):
        vk = self.vk

        def callback(severity, types, data, user):
            if severity & vk.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT:
                self.validation_errors.append(vk.ffi.string(data.pMessage).decode(errors="replace"))
            return 0

        create = vk.vkGetInstanceProcAddr(self.instance, "vkCreateDebugUtilsMessengerEXT")
        self._messenger = create(self.instance, vk.VkDebugUtilsMessengerCreateInfoEXT(
            messageSeverity=vk.VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT
            | vk.VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
            messageType=vk.VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
            | vk.VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
            pfnUserCallback=callback), None)

    @property
    def validating(self) -> bool:
        return self._messenger is not None

    def raise_validation_errors(self, since: int) -> None:
        """Raise when the validation layer reported anything after the first
        ``since`` messages (``len(validation_errors)`` taken before the work)."""
        if len(self.validation_errors) > since:
            raise RuntimeError("Vulkan validation errors:\n" + "\n".join(self.validation_errors[since:]))

    def bind_image_general(self, image, subresource_range):
        """Device memory bound to a new ``image``, and the image moved to
        VK_IMAGE_LAYOUT_GENERAL, where the runner keeps every image (colour
        and depth alike); returns the memory."""
        vk = self.vk
        memory = self.allocate(vk.vkGetImageMemoryRequirements(self.device, image), host=False)
        vk.vkBindImageMemory(self.device, image, memory, 0)
        self.submit(lambda cmd: vk.vkCmdPipelineBarrier(
            cmd, vk.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, None, 0, None, 1,
            [vk.VkImageMemoryBarrier(
                srcAccessMask=0, dstAccessMask=vk.VK_ACCESS_MEMORY_READ_BIT | vk.VK_ACCESS_MEMORY_WRITE_BIT,
                oldLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED, newLayout=vk.VK_IMAGE_LAYOUT_GENERAL,
                srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
                image=image, subresourceRange=subresource_range)]))
        return memory

    def allocate(self, req, host: bool):
        vk = self.vk
        want = (vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT if host
                else vk.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
        for i in range(self.memory_types.memoryTypeCount):
            if req.memoryTypeBits & (1 << i) and (self.memory_types.memoryTypes[i].propertyFlags & want) == want:
                return vk.vkAllocateMemory(self.device, vk.VkMemoryAllocateInfo(
                    allocationSize=req.size, memoryTypeIndex=i), None)
        raise RuntimeError("no suitable Vulkan memory type")

    def barrier(self, cmd):
        """Everything before is visible to everything after (the runner is not about speed)."""
        vk = self.vk
        acc = vk.VK_ACCESS_MEMORY_READ_BIT | vk.VK_ACCESS_MEMORY_WRITE_BIT
        vk.vkCmdPipelineBarrier(cmd, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                                1, [vk.VkMemoryBarrier(srcAccessMask=acc, dstAccessMask=acc)], 0, None, 0, None)

    def submit(self, record):
        """Record with ``record(cmd)``, submit, wait."""
        vk = self.vk
        vk.vkResetCommandBuffer(self.cmd, 0)
        vk.vkBeginCommandBuffer(self.cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        record(self.cmd)
        vk.vkEndCommandBuffer(self.cmd)
        vk.vkQueueSubmit(self.queue, 1, [vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[self.cmd])],
                         self.fence)
        vk.vkWaitForFences(self.device, 1, [self.fence], vk.VK_TRUE, 60 * 10**9)
        vk.vkResetFences(self.device, 1, [self.fence])


_DEVICE: _Device | None = None
_DEVICE_ERROR: str | None = None


def device() -> _Device:
    """The process's Vulkan device (raises ``VulkanUnavailable``)."""
    global _DEVICE, _DEVICE_ERROR
    if _DEVICE is not None:
        return _DEVICE
    if _DEVICE_ERROR is not None:
        raise VulkanUnavailable(_DEVICE_ERROR)
    try:
        _DEVICE = _Device()
    except VulkanUnavailable as exc:
        _DEVICE_ERROR = str(exc)
        raise
    except Exception as exc:  # noqa: BLE001 - any failure means "no Vulkan here"
        _DEVICE_ERROR = f"no Vulkan device: {type(exc).__name__}: {exc}"
        raise VulkanUnavailable(_DEVICE_ERROR) from exc
    return _DEVICE


# --------------------------------------------------------------------------
# Render targets
# --------------------------------------------------------------------------


class RenderTargets:
    """``count`` RGBA32F images of one size.  In memory the image lies in D3D
    order (row 0 = top) when the shaders were translated with flip_y (the
    Vulkan default), upside down otherwise; ``read`` returns D3D order
    either way (``flip_y`` is set by the last draw)."""

    def __init__(self, width: int, height: int, count: int = 1, depth: bool = False):
        dev = self.dev = device()
        vk = dev.vk
        self.width, self.height, self.count = width, height, count
        usage = (vk.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | vk.VK_IMAGE_USAGE_TRANSFER_SRC_BIT
                 | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT)
        self.images = [_Image(dev, "2d", width, height, usage=usage) for _ in range(count)]
        self.views = [img.view() for img in self.images]
        self.depth = _DepthImage(dev, width, height) if depth else None
        self.flip_y = True
        self._framebuffers: dict[Any, Any] = {}
        self._readback = _Buffer(dev, width * height * 16, vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT)

    def framebuffer(self, render_pass):
        vk = self.dev.vk
        fb = self._framebuffers.get(render_pass)
        if fb is None:
            views = self.views + ([self.depth.view] if self.depth else [])
            fb = vk.vkCreateFramebuffer(self.dev.device, vk.VkFramebufferCreateInfo(
                renderPass=render_pass, attachmentCount=len(views), pAttachments=views,
                width=self.width, height=self.height, layers=1), None)
            self._framebuffers[render_pass] = fb
        return fb

    def clear(self, colours=None):
        """One RGBA for all targets, or a list with one per target."""
        vk, dev = self.dev.vk, self.dev
        if colours is None:
            colours = (0.0, 0.0, 0.0, 0.0)
        if np.ndim(colours) == 1:
            colours = [colours] * self.count

        def record(cmd):
            for img, c in zip(self.images, colours):
                vk.vkCmdClearColorImage(cmd, img.handle, vk.VK_IMAGE_LAYOUT_GENERAL,
                                        vk.VkClearColorValue(float32=[float(v) for v in c]), 1, [img.range()])
            dev.barrier(cmd)

        dev.submit(record)

    def clear_depth(self, z: float):
        """The depth target (``depth=True``) to ``z``."""
        vk, dev = self.dev.vk, self.dev

        def record(cmd):
            vk.vkCmdClearDepthStencilImage(cmd, self.depth.handle, vk.VK_IMAGE_LAYOUT_GENERAL,
                                           vk.VkClearDepthStencilValue(float(z), 0), 1, [self.depth.range()])
            dev.barrier(cmd)

        dev.submit(record)

    def read(self, index: int = 0, rect: tuple[int, int, int, int] | None = None) -> np.ndarray:
        """Target ``index`` in D3D order; ``rect`` = (left, top, right, bottom)
        in D3D pixels (exclusive) reads only that part."""
        vk, dev = self.dev.vk, self.dev
        img = self.images[index]

        def record(cmd):
            dev.barrier(cmd)
            vk.vkCmdCopyImageToBuffer(cmd, img.handle, vk.VK_IMAGE_LAYOUT_GENERAL, self._readback.handle, 1, [
                vk.VkBufferImageCopy(bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
                                     imageSubresource=vk.VkImageSubresourceLayers(vk.VK_IMAGE_ASPECT_COLOR_BIT,
                                                                                  0, 0, 1),
                                     imageOffset=vk.VkOffset3D(0, 0, 0),
                                     imageExtent=vk.VkExtent3D(self.width, self.height, 1))])
            dev.barrier(cmd)

        dev.submit(record)
        full = np.frombuffer(self._readback.mapped, F32, self.width * self.height * 4)
        full = full.reshape(self.height, self.width, 4)
        if not self.flip_y:
            full = full[::-1]
        left, top, right, bottom = rect or (0, 0, self.width, self.height)
        return full[top:bottom, left:right].copy()

    def release(self):
        vk = self.dev.vk
        for fb in self._framebuffers.values():
            vk.vkDestroyFramebuffer(self.dev.device, fb, None)
        for v in self.views:
            vk.vkDestroyImageView(self.dev.device, v, None)
        for img in self.images:
            img.release()
        if self.depth:
            self.depth.release()
            self.depth = None
        self._readback.release()
        self.images, self.views, self._framebuffers = [], [], {}
