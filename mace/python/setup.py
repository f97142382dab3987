"""Tags the wheel py3-none-<platform>: it carries a native libmace.so, loaded
through ctypes, so it is tied to a platform but not to a Python ABI. The
platform comes from the staged setup.cfg (tools/wheel.sh)."""
from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel


class NativeDistribution(Distribution):
    """Installs the package as platform-specific (platlib)."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    def get_tag(self) -> tuple[str, str, str]:
        return "py3", "none", super().get_tag()[2]


setup(distclass=NativeDistribution, cmdclass={"bdist_wheel": PlatformWheel})
