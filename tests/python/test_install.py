# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""`make install` as a C user consumes it: into a temporary prefix (with DESTDIR
staging), then tests/consumer/consumer.c is built against the installed tree three
ways and run: pkg-config (shared), pkg-config --static (the archive, a fully static
program) and a CMake project with find_package(aesgen 0.6).  Also: the installed
shared library's SONAME, links and exports; the CMake version rule; `make uninstall`;
`make clean` (every build directory, nothing else).

The expected answers are in consumer.c (published known answers), which prints
`consumer: N passed, N failed`.  Needs cc, pkg-config and cmake (tests/tools.sh
installs them); the build directory comes from AESGEN_BUILD.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from repo import BUILD, REPO, have

CONSUMER = os.path.join(REPO, "tests", "consumer")
HEADER = os.path.join(REPO, "runtime", "include", "aesgen.h")


def header_version():
    """(major, minor, patch) as aesgen.h defines them -- the one definition."""
    text = open(HEADER, encoding="utf-8").read()
    parts = [int(re.search(rf"^#define AESGEN_VERSION_{p} (\d+)$", text, re.M).group(1))
             for p in ("MAJOR", "MINOR", "PATCH")]
    string = re.search(r'^#define AESGEN_VERSION_STRING "(.*)"$', text, re.M).group(1)
    assert string == "%d.%d.%d" % tuple(parts), "AESGEN_VERSION_STRING disagrees with the numbers"
    return tuple(parts)


def clean_env(**extra):
    """The environment without the outer make's jobserver, plus extra."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(extra)
    return env


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}:\n"
                             f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def make(*targets, **variables):
    argv = ["make", "-s", "-C", REPO, f"BUILD={BUILD}", *targets,
            *(f"{k}={v}" for k, v in variables.items())]
    return run(argv, env=clean_env())


def needed_libraries(path):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", run(["readelf", "-d", path]))


@unittest.skipUnless(have("pkg-config") and have("cmake") and have("cc"),
                     "pkg-config, cmake or cc missing (tests/tools.sh installs them)")
class InstalledTree(unittest.TestCase):
    """One install for the whole class; every test reads it."""

    PREFIX = "/opt/aesgen-test"   # what the .pc file records; the files go under DESTDIR

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="aesgen-install-")
        cls.destdir = os.path.join(cls.work, "stage")
        cls.root = cls.destdir + cls.PREFIX
        cls.major, cls.minor, cls.patch = header_version()
        cls.version = f"{cls.major}.{cls.minor}.{cls.patch}"
        # the SONAME's version: the major, or 0.minor while the major is 0
        cls.abi = f"0.{cls.minor}" if cls.major == 0 else f"{cls.major}"
        # the build directory's library before the install (None: not built yet)
        built = os.path.join(BUILD, f"libaesgen.so.{cls.version}")
        cls.built_before = os.stat(built).st_mtime_ns if os.path.exists(built) else None
        make("install", PREFIX=cls.PREFIX, DESTDIR=cls.destdir)
        cls.built_after = os.stat(built).st_mtime_ns

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def pkg_config(self, *args):
        # The staged tree is not at PREFIX: point pkg-config's variables at DESTDIR.
        env = clean_env(PKG_CONFIG_PATH=os.path.join(self.root, "lib", "pkgconfig"),
                        PKG_CONFIG_SYSROOT_DIR=self.destdir, PKG_CONFIG_LIBDIR="")
        return run(["pkg-config", *args, "aesgen"], env=env).split()

    def run_consumer(self, program, env=None):
        out = run([program], env=env)
        self.assertRegex(out.strip().splitlines()[-1], r"^consumer: [1-9]\d* passed, 0 failed$", out)
        self.assertNotIn("FAIL", out)
        return out

    # --- the files ------------------------------------------------------------------------
    def test_install_into_a_built_tree_builds_nothing(self):
        # make test runs this with BUILD spelled as an absolute path while other tests read
        # the libraries; a rebuild under them (the flags file once named BUILD's paths)
        # is a race
        if self.built_before is None:
            self.skipTest("the library was not built before the install")
        self.assertEqual(self.built_after, self.built_before,
                         "make install relinked the build directory's library")

    def test_installed_files(self):
        expected = {
            "include/aesgen.h", "lib/libaesgen.a", f"lib/libaesgen.so.{self.version}",
            f"lib/libaesgen.so.{self.abi}", "lib/libaesgen.so", "lib/pkgconfig/aesgen.pc",
            "lib/cmake/aesgen/aesgenConfig.cmake", "lib/cmake/aesgen/aesgenConfigVersion.cmake",
        }
        found = set()
        for directory, _, files in os.walk(self.root):
            found |= {os.path.relpath(os.path.join(directory, f), self.root) for f in files}
        self.assertEqual(found, expected)

    def test_shared_library_names(self):
        lib = os.path.join(self.root, "lib")
        self.assertEqual(os.readlink(os.path.join(lib, "libaesgen.so")), f"libaesgen.so.{self.abi}")
        self.assertEqual(os.readlink(os.path.join(lib, f"libaesgen.so.{self.abi}")),
                         f"libaesgen.so.{self.version}")
        dynamic = run(["readelf", "-d", os.path.join(lib, f"libaesgen.so.{self.version}")])
        self.assertIn(f"Library soname: [libaesgen.so.{self.abi}]", dynamic)

    def test_exports_only_aesgen_names(self):
        path = os.path.join(self.root, "lib", f"libaesgen.so.{self.version}")
        names = set()
        for line in run(["nm", "-D", "--defined-only", path]).splitlines():
            fields = line.split()
            if len(fields) == 3:
                names.add(fields[2].split("@")[0])
        self.assertIn("aesgen_version", names)
        self.assertIn("aesgen_gcm_encrypt", names)
        self.assertEqual(sorted(n for n in names if not n.startswith("aesgen_")), [])
        # Only the API: the assembly entry points stay local.
        self.assertEqual(sorted(n for n in names if re.search(r"_(aesni_avx|vaes_avx2|avx10_\d+)", n)), [])

    def test_pkg_config_file(self):
        pc = open(os.path.join(self.root, "lib", "pkgconfig", "aesgen.pc")).read()
        self.assertIn(f"prefix={self.PREFIX}\n", pc)
        self.assertIn(f"Version: {self.version}\n", pc)
        for mode in ("CTR", "XCTR", "XTS", "GCM"):
            self.assertIn(f"AES-{mode}", pc)

    # --- three ways to build a program against it ------------------------------------------
    def test_pkg_config_shared(self):
        program = os.path.join(self.work, "consumer_pc_shared")
        run(["cc", "-std=c11", "-o", program, os.path.join(CONSUMER, "consumer.c"),
             *self.pkg_config("--cflags", "--libs")])
        self.assertIn(f"libaesgen.so.{self.abi}", needed_libraries(program))
        self.run_consumer(program, env=clean_env(LD_LIBRARY_PATH=os.path.join(self.root, "lib")))

    def test_pkg_config_static(self):
        program = os.path.join(self.work, "consumer_pc_static")
        run(["cc", "-std=c11", "-static", "-o", program, os.path.join(CONSUMER, "consumer.c"),
             *self.pkg_config("--static", "--cflags", "--libs")])
        self.assertEqual(needed_libraries(program), [])   # nothing loaded at run time
        self.run_consumer(program)

    def cmake_configure(self, build_dir, request):
        return subprocess.run(
            ["cmake", "-S", CONSUMER, "-B", build_dir, f"-DCMAKE_PREFIX_PATH={self.root}",
             f"-DAESGEN_REQUEST={request}", "-DCMAKE_BUILD_TYPE=Release"],
            capture_output=True, text=True, env=clean_env())

    def test_cmake_find_package(self):
        build_dir = os.path.join(self.work, "cmake-build")
        configured = self.cmake_configure(build_dir, f"{self.major}.{self.minor}")
        self.assertEqual(configured.returncode, 0, configured.stdout + configured.stderr)
        run(["cmake", "--build", build_dir], env=clean_env())
        shared = os.path.join(build_dir, "consumer_shared")
        static = os.path.join(build_dir, "consumer_static")
        self.assertIn(f"libaesgen.so.{self.abi}", needed_libraries(shared))
        self.assertNotIn(f"libaesgen.so.{self.abi}", needed_libraries(static))
        self.run_consumer(shared)   # CMake records the imported library's directory (RUNPATH)
        self.run_consumer(static)

    def test_readme_asks_for_this_version(self):
        """README's find_package line asks for this minor (0.N accepts only 0.N.x)."""
        with open(os.path.join(REPO, "README.md"), encoding="utf-8") as handle:
            asked = re.findall(r"find_package\(aesgen (\d+)\.(\d+)", handle.read())
        self.assertTrue(asked, "README shows no find_package(aesgen X.Y ...)")
        for major, minor in asked:
            self.assertEqual((int(major), int(minor)), (self.major, self.minor))

    def test_cmake_version_rule(self):
        """A newer minor (while the major is 0) or another major is refused."""
        for request in (f"{self.major}.{self.minor + 1}", f"{self.major + 1}.0"):
            with self.subTest(request=request):
                configured = self.cmake_configure(os.path.join(self.work, f"cmake-{request}"), request)
                self.assertNotEqual(configured.returncode, 0, configured.stdout)
                self.assertIn("considered but not accepted", configured.stderr)
                self.assertIn(f"version: {self.version}", configured.stderr)


@unittest.skipUnless(have("cc"), "cc missing")
class Uninstall(unittest.TestCase):
    def test_uninstall_removes_what_install_wrote(self):
        work = tempfile.mkdtemp(prefix="aesgen-uninstall-")
        try:
            make("install", PREFIX="/usr/local", DESTDIR=work)
            make("uninstall", PREFIX="/usr/local", DESTDIR=work)
            left = [os.path.join(d, f) for d, _, files in os.walk(work) for f in files]
            self.assertEqual(left, [])
        finally:
            shutil.rmtree(work, ignore_errors=True)


class Clean(unittest.TestCase):
    def test_clean_removes_every_build_directory_and_keeps_gen(self):
        work = tempfile.mkdtemp(prefix="aesgen-clean-")
        try:
            build = os.path.join(work, "b")
            made = [build + suffix for suffix in ("", "-sanitize", "-fuzz", "-ct")]
            for directory in made:
                os.makedirs(os.path.join(directory, "sub"))
                with open(os.path.join(directory, "sub", "file"), "w") as handle:
                    handle.write("x")
            keep = os.path.join(work, "b-other")          # not a build directory of ours
            os.makedirs(keep)
            manifest = os.path.join(REPO, "gen", "manifest.json")
            before = os.stat(manifest).st_mtime_ns
            subprocess.run(["make", "-s", "clean", f"BUILD={build}"], cwd=REPO, check=True,
                           env=clean_env(), capture_output=True)
            self.assertEqual([d for d in made if os.path.exists(d)], [])
            self.assertTrue(os.path.isdir(keep))
            self.assertEqual(os.stat(manifest).st_mtime_ns, before)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
