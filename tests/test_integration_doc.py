"""docs/INTEGRATION.md's code really builds: its main(), profiling header, linker fragment, Makefile and CMake project,
extracted from the markdown, link the bundled example model for a Cortex-M4 with arm-none-eabi-gcc -Werror, with
the arena and the weights in the documented regions and the profiling hook wired into every layer."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import mcucomp

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "INTEGRATION.md"
EXAMPLE = ROOT / "examples" / "tiny_cnn.onnx"
#: The regions of the doc's regions.ld.
DTCM = (0x2000_0000, 128 << 10)
QSPI = (0x9000_0000, 8 << 20)
STRICT_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-ffp-contract=off", "-mcpu=cortex-m4")


def doc_files(text: str) -> dict[str, str]:
    """The fenced code blocks whose info string names a file (```c main.c), by file name."""
    return {m.group(1): m.group(2) + "\n" for m in re.finditer(r"^```\w+ (\S+)\n(.*?)\n```$", text, re.S | re.M)}


def symbols(elf: Path) -> dict[str, int]:
    """Symbol name → address, from arm-none-eabi-nm."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    return {parts[2]: int(parts[0], 16) for parts in (line.split() for line in out.splitlines()) if len(parts) == 3}


def inside(address: int, region: tuple[int, int]) -> bool:
    """address lies in (base, size)."""
    return region[0] <= address < region[0] + region[1]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A directory with the doc's files and the example compiled into out/tiny_cnn, as the doc assumes."""
    for tool in ("arm-none-eabi-gcc", "arm-none-eabi-nm", "make"):
        assert shutil.which(tool), f"{tool} missing: apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi make"
    root = tmp_path_factory.mktemp("integration")
    for name, text in doc_files(DOC.read_text()).items():
        (root / name).write_text(text)
    mcucomp.compile_model(EXAMPLE, root / "out" / "tiny_cnn", name="tiny_cnn")
    return root


def check_elf(elf: Path) -> None:
    """The arena in DTCM, the weights in QSPI, the model and the profiling hook linked in."""
    syms = symbols(elf)
    assert inside(syms["arena"], DTCM), hex(syms["arena"])
    assert syms["arena"] % 16 == 0
    weights = [s for s in syms if s.startswith("tiny_cnn_c") and s.endswith(("_w", "_wpack"))]
    assert weights and all(inside(syms[s], QSPI) for s in weights), {s: hex(syms[s]) for s in weights}
    assert "tiny_cnn_run" in syms and "main" in syms
    # --gc-sections drops profile_cycles unless the model's PROFILE_END writes it: this proves the hook is called.
    assert "profile_cycles" in syms


def test_doc_names_every_file():
    files = doc_files(DOC.read_text())
    assert set(files) == {"main.c", "regions.ld", "Makefile", "CMakeLists.txt", "profile_dwt.h"}
    assert "main(void)" in files["main.c"] and "tiny_cnn_run(" in files["main.c"]
    assert "TINY_CNN_OK" in files["main.c"]
    assert len(files["main.c"].splitlines()) <= 25
    profile = files["profile_dwt.h"]
    for needle in ("0xE0001004", "0xE000EDFC", "1u << 24", "0xE0001000", "TINY_CNN_PROFILE_BEGIN(i)",
                   "TINY_CNN_PROFILE_END(i)"):
        assert needle in profile


def test_generated_c_calls_the_documented_hook(project):
    source = (project / "out" / "tiny_cnn" / "tiny_cnn.c").read_text()
    assert "TINY_CNN_PROFILE_BEGIN(0);" in source and "TINY_CNN_PROFILE_END(0);" in source


def test_makefile_builds_for_cortex_m4(project):
    proc = subprocess.run(["make", "-B", "app.elf"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for flag in STRICT_FLAGS:
        assert flag in proc.stdout, f"{flag} missing from the build command: {proc.stdout}"
    check_elf(project / "app.elf")


def test_makefile_build_fails_on_a_warning(project, tmp_path):
    """The doc's flags turn warnings into errors: an unused variable in main() stops the build."""
    for name in ("main.c", "profile_dwt.h", "regions.ld", "Makefile"):
        shutil.copy(project / name, tmp_path / name)
    main = (project / "main.c").read_text().replace("int best = 0;", "int best = 0, unused;")
    (tmp_path / "main.c").write_text(main)
    proc = subprocess.run(["make", "-B", f"MODEL={project / 'out' / 'tiny_cnn'}"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "unused" in proc.stderr


def test_cmake_project_builds_for_cortex_m4(project):
    assert shutil.which("cmake"), "cmake missing: apt-get install cmake"
    build = project / "cmake-build"
    configure = subprocess.run(
        ["cmake", "-S", str(project), "-B", str(build), "-DCMAKE_SYSTEM_NAME=Generic",
         "-DCMAKE_C_COMPILER=arm-none-eabi-gcc", "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY"],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    proc = subprocess.run(["cmake", "--build", str(build), "--", "VERBOSE=1"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for flag in STRICT_FLAGS:
        assert flag in proc.stdout
    check_elf(build / "app.elf")
