"""Packs the Java API as an Android Archive (`android_aar: 1`).

build/<library_name>/java/libmace_<library_name>.aar is a zip in the
layout Android's build tools take: classes.jar, AndroidManifest.xml and
jni/<android abi>/libmace_jni.so for each target ABI. The native libraries
are the ones this machine builds (glibc, see docs/start/android.md); the layout is
the same for bionic builds.
"""
from __future__ import annotations

import platform
import zipfile
from pathlib import Path
from typing import Optional

from mace_converter.config import DeploymentConfig
from mace_converter.progress import say, shown, step

MANIFEST = """<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.mace">
    <uses-sdk android:minSdkVersion="21" />
</manifest>
"""
# A fixed time stamp for every entry, so the same inputs give the same bytes.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def android_abi(abi: str) -> Optional[str]:
    """The Android ABI directory for a target ABI; the host build counts as
    x86_64 on an x86-64 machine and has no Android name elsewhere."""
    if abi == "host":
        return "x86_64" if platform.machine() == "x86_64" else None
    return abi


def aar_path(java_dir: Path, config: DeploymentConfig) -> Path:
    return java_dir / f"libmace_{config.library_name}.aar"


def make_aar(config: DeploymentConfig, java_dir: Path) -> Optional[Path]:
    """Zips java/mace.jar and java/jniLibs/<abi>/libmace_jni.so into the
    archive; returns its path, or None when nothing was asked for."""
    if not config.android_aar:
        return None
    target = aar_path(java_dir, config)
    entries: list[tuple[str, Path]] = [("classes.jar", java_dir / "mace.jar")]
    for abi in config.target_abis:
        library = java_dir / "jniLibs" / abi / "libmace_jni.so"
        name = android_abi(abi)
        if name is None:
            say(f"note: android_aar: the {abi} library has no Android ABI name on "
                f"{platform.machine()}; left out of {target.name}")
            continue
        if library.exists():
            entries.append((f"jni/{name}/libmace_jni.so", library))
    with step(f"pack {shown(target)}"):
        partial = target.with_name(target.name + ".part")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(_entry("AndroidManifest.xml"), MANIFEST)
            for name, source in sorted(entries):
                archive.writestr(_entry(name), source.read_bytes())
        partial.replace(target)
        say(f"    {target.stat().st_size / 2**20:.2f} MiB")
    return target


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info
