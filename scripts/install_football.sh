#!/usr/bin/env bash
# Installs Google Research Football (gfootball 2.10.2) into a CPython 3.10 venv.
#
#   bash scripts/install_football.sh /path/to/venv/bin/python
#
# Debian ships Boost.Python only for its own Python (3.11), so this script builds
# Boost.Python for 3.10 from Debian's boost1.74 source package, builds the gfootball engine
# from the 2.10.2 sdist, packs both into a gfootball wheel and installs that wheel with the
# repo's constraints file (see shared/STACK.md, "Football").
#
# Build products are cached under
#   ${SEED_GRAPH_CACHE:-$HOME/.cache/seed_graph}/football-2.10.2-py3.10-boost1.74/
# so a second run (even into a new venv) only installs the cached wheel: no compiling.
# If gfootball already imports in the venv, the script exits at once.
#
# Needs: root (or all Debian packages below already installed), PyPI and Debian's archive.
# Environment: SEED_GRAPH_CACHE (cache root), SEED_GRAPH_KEEP_BUILD=1 (keep the build tree).
set -euo pipefail

GFOOTBALL_VERSION=2.10.2
BOOST_SRC_PKG=boost1.74
BOOST_SOVERSION=1.74.0
BOOST_PY_SONAME="libboost_python310.so.${BOOST_SOVERSION}"

log() { echo "[install_football $(date +%H:%M:%S)] $*" >&2; }
die() { echo "[install_football] ERROR: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || die "usage: bash $0 /path/to/venv/bin/python"
py="$1"
[[ -x "$py" ]] || die "'$py' is not an executable python"
# Absolute (not resolved through symlinks: a venv's python is one): later steps cd.
[[ "$py" == /* ]] || py="$PWD/$py"
"$py" -c 'import sys; sys.exit(not (sys.implementation.name == "cpython" and sys.version_info[:2] == (3, 10)))' \
  || die "'$py' is not CPython 3.10 (gfootball's engine is built here for 3.10 only)"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
constraints="$script_dir/../requirements/constraints.txt"
[[ -f "$constraints" ]] || die "constraints file not found: $constraints"
constraints="$(cd "$(dirname "$constraints")" && pwd)/$(basename "$constraints")"

cache="${SEED_GRAPH_CACHE:-$HOME/.cache/seed_graph}/football-${GFOOTBALL_VERSION}-py3.10-boost1.74"
cache_lib="$cache/lib"
cache_wheels="$cache/wheels"
build="$cache/build"
boost_py_so="$cache_lib/$BOOST_PY_SONAME"
libgame_so="$cache_lib/libgame.so"

# The smoke check runs without LD_LIBRARY_PATH, as a fresh shell would.
smoke_check() {
  env -u LD_LIBRARY_PATH -u PYTHONPATH "$py" -c '
import gfootball.env as e
env = e.create_environment("academy_empty_goal_close", representation="simple115v2")
obs = env.reset()
assert obs.shape[-1] == 115, obs.shape
env.close()
' >/dev/null 2>&1
}

# ---------------------------------------------------------------------------------------------
# 0. Already installed?
if env -u LD_LIBRARY_PATH "$py" -c 'import gfootball.env, gfootball_engine' >/dev/null 2>&1; then
  log "gfootball already imports in $py; nothing to do"
  exit 0
fi
start=$SECONDS
had_gfootball=0
"$py" -m pip show --quiet gfootball >/dev/null 2>&1 && had_gfootball=1
log "installing gfootball $GFOOTBALL_VERSION into $py (cache: $cache)"

# ---------------------------------------------------------------------------------------------
# 1. Debian packages (build deps; they also bring the engine's runtime libraries).
debs=(
  cmake build-essential patch xz-utils
  libsdl2-dev libsdl2-image-dev libsdl2-ttf-dev libsdl2-gfx-dev
  libgl1-mesa-dev libegl1-mesa-dev libgles2-mesa-dev
  libboost1.74-dev libboost-thread1.74-dev libboost-system1.74-dev
  libboost-filesystem1.74-dev libboost-chrono1.74-dev libboost-date-time1.74-dev
  libboost-atomic1.74-dev
)
missing=()
for p in "${debs[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  log "stage 1/5: installing Debian packages: ${missing[*]}"
  [[ $(id -u) -eq 0 ]] || die "missing Debian packages (${missing[*]}) and not root: install them with apt-get first"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || die "apt-get update failed"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
else
  log "stage 1/5: Debian packages present"
fi

mkdir -p "$cache_lib" "$cache_wheels"
multiarch="$(gcc -print-multiarch 2>/dev/null || true)"
sys_libdir="/usr/lib/${multiarch:-x86_64-linux-gnu}"

py_include="$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
py_libdir="$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))')"
py_prefix="$("$py" -c 'import sys; print(sys.base_prefix)')"
py_shared="$("$py" -c 'import sysconfig; print(int(bool(sysconfig.get_config_var("Py_ENABLE_SHARED"))))')"
[[ -f "$py_include/Python.h" ]] || die "Python.h not found in $py_include (need the 3.10 development headers)"

# Downloads the gfootball sdist into $build and unpacks it; sets $sdist_dir.
sdist_dir="$build/gfootball-$GFOOTBALL_VERSION"
fetch_sdist() {
  [[ -f "$sdist_dir/setup.py" ]] && return 0
  mkdir -p "$build"
  log "  downloading the gfootball $GFOOTBALL_VERSION sdist from PyPI"
  "$py" -m pip download --quiet --no-deps --no-binary :all: -d "$build" "gfootball==$GFOOTBALL_VERSION" \
    || die "could not download the gfootball==$GFOOTBALL_VERSION sdist from PyPI"
  tar xzf "$build/gfootball-$GFOOTBALL_VERSION.tar.gz" -C "$build" \
    || die "could not unpack $build/gfootball-$GFOOTBALL_VERSION.tar.gz"
}

# ---------------------------------------------------------------------------------------------
# 2. Boost.Python for 3.10, from Debian's boost1.74 source package.
if [[ -f "$boost_py_so" ]]; then
  log "stage 2/5: Boost.Python for 3.10 cached ($boost_py_so)"
else
  log "stage 2/5: building Boost.Python for 3.10 from Debian's $BOOST_SRC_PKG source package"
  bdir="$build/boost"
  rm -rf "$bdir"
  mkdir -p "$bdir"/apt/lists/partial "$bdir"/apt/cache/archives/partial "$bdir"/apt/sources.list.d "$bdir"/src
  # A private apt setup with deb-src entries for this release's suites (derived from the
  # system's own deb entries), so the system's apt configuration is left untouched.
  "$py" "$script_dir/deb_src_entries.py" "$bdir/apt/sources.list.d/deb-src.sources" \
    || die "could not derive deb-src entries from /etc/apt"
  apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$bdir/apt/sources.list.d"
            -o "Dir::State::Lists=$bdir/apt/lists" -o "Dir::Cache=$bdir/apt/cache"
            -o APT::Sandbox::User=root -qq)
  log "  fetching the $BOOST_SRC_PKG source package ($(grep -m1 '^URIs' "$bdir/apt/sources.list.d/deb-src.sources" | cut -d' ' -f2-), ~61 MB)"
  apt-get "${apt_opts[@]}" update >/dev/null 2>"$bdir/apt-update.log" || true
  (cd "$bdir/src" && apt-get "${apt_opts[@]}" source --download-only "$BOOST_SRC_PKG" >"$bdir/apt-source.log" 2>&1) \
    || { cat "$bdir/apt-update.log" "$bdir/apt-source.log" >&2
         die "no deb-src for $BOOST_SRC_PKG could be downloaded (deb-src entries tried: $bdir/apt/sources.list.d/deb-src.sources)"; }
  orig=$(ls "$bdir"/src/${BOOST_SRC_PKG}_*.orig.tar.* 2>/dev/null | head -n1)
  debtar=$(ls "$bdir"/src/${BOOST_SRC_PKG}_*.debian.tar.* 2>/dev/null | head -n1)
  [[ -n "$orig" && -n "$debtar" ]] || die "the $BOOST_SRC_PKG source package is incomplete in $bdir/src"
  log "  unpacking libs/python and Debian's patches"
  tar xf "$orig" -C "$bdir" 'boost/libs/python' || die "libs/python not found in $orig"
  tar xf "$debtar" -C "$bdir" debian/patches || die "debian/patches not found in $debtar"
  # Every patch of Debian's series that touches Boost.Python, in series order (the two
  # python3.10-*.patch ones make it build against 3.10).
  applied=()
  while read -r p; do
    p="${p%%#*}"; p="${p// /}"
    [[ -n "$p" && -f "$bdir/debian/patches/$p" ]] || continue
    grep -q '^+++ [^/]*/libs/python/' "$bdir/debian/patches/$p" || continue
    patch -s -p1 -d "$bdir/boost" <"$bdir/debian/patches/$p" || die "Debian patch $p does not apply to libs/python"
    applied+=("$p")
  done <"$bdir/debian/patches/series"
  for need in python3.10-file.patch python3.10-pep-620.patch; do
    [[ " ${applied[*]} " == *" $need "* ]] || die "Debian's $need was not found in $debtar"
  done
  log "  applied: ${applied[*]}"
  log "  compiling libs/python/src (one g++ call, ~1 min)"
  srcdir="$bdir/boost/libs/python/src"
  link_py=()
  [[ "$py_shared" == 1 ]] && link_py=(-L"$py_libdir" -lpython3.10)
  g++ -O2 -shared -fPIC -std=c++14 -DNDEBUG -DBOOST_PYTHON_SOURCE -DBOOST_PYTHON_DYNAMIC_LIB \
      -I"$bdir/boost/libs/python/include" -I"$py_include" \
      "$srcdir"/*.cpp "$srcdir"/object/*.cpp "$srcdir"/converter/*.cpp \
      -Wl,-soname,"$BOOST_PY_SONAME" "${link_py[@]}" -o "$boost_py_so.tmp" >"$build/boost-python.log" 2>&1 \
    || { grep -m 20 -A 3 'error' "$build/boost-python.log" >&2
         die "compiling Boost.Python failed (log: $build/boost-python.log; are libboost1.74-dev and the 3.10 headers in $py_include present?)"; }
  mv -f "$boost_py_so.tmp" "$boost_py_so"
  rm -rf "$bdir"
fi

# ---------------------------------------------------------------------------------------------
# 3. The gfootball engine (libgame.so).
if [[ -f "$libgame_so" ]]; then
  log "stage 3/5: engine cached ($libgame_so)"
else
  log "stage 3/5: building the gfootball engine (cmake + make -j$(nproc), ~4-5 min on 2 cores)"
  fetch_sdist
  eng="$sdist_dir/third_party/gfootball_engine"
  # FindBoost looks for thread/system/filesystem/... beside the Boost.Python library it is given.
  bl="$build/boostlib"
  rm -rf "$bl"; mkdir -p "$bl"
  ln -s "$boost_py_so" "$bl/libboost_python310.so"
  for c in thread system filesystem chrono date_time atomic; do
    [[ -e "$sys_libdir/libboost_$c.so" ]] || die "libboost_$c.so not found in $sys_libdir (libboost-*1.74-dev)"
    ln -s "$sys_libdir/libboost_$c.so" "$bl/libboost_$c.so"
  done
  rm -f "$eng/CMakeCache.txt"
  # RUNPATH $ORIGIN: the engine finds libboost_python310 beside itself inside site-packages.
  (cd "$eng" && cmake . \
      -DPython_ROOT_DIR="$py_prefix" -DPython_FIND_STRATEGY=LOCATION \
      -DBoost_NO_BOOST_CMAKE=ON -DBoost_PYTHON310_LIBRARY_RELEASE="$bl/libboost_python310.so" \
      -DCMAKE_SKIP_BUILD_RPATH=OFF -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH='$ORIGIN' \
      >"$build/cmake.log" 2>&1) \
    || { tail -n 30 "$build/cmake.log" >&2; die "cmake failed for the gfootball engine (log: $build/cmake.log)"; }
  grep -q 'Using Python: 3.10' "$build/cmake.log" \
    || { grep 'Using Python' "$build/cmake.log" >&2; die "cmake did not pick Python 3.10 from $py_prefix"; }
  grep -q 'Using Boost.Python: python310' "$build/cmake.log" \
    || die "cmake did not pick the Boost.Python built for 3.10 (log: $build/cmake.log)"
  (cd "$eng" && make -j"$(nproc)" >"$build/make.log" 2>&1) \
    || { tail -n 30 "$build/make.log" >&2; die "compiling the gfootball engine failed (log: $build/make.log)"; }
  [[ -f "$eng/libgame.so" ]] || die "make finished but $eng/libgame.so is missing"
  strip --strip-debug "$eng/libgame.so"
  cp -f "$eng/libgame.so" "$libgame_so.tmp"
  mv -f "$libgame_so.tmp" "$libgame_so"
fi

# ---------------------------------------------------------------------------------------------
# 4. A gfootball wheel holding the prebuilt engine and Boost.Python beside it.
wheel_glob="gfootball-${GFOOTBALL_VERSION}-cp310-cp310-*.whl"
wheel=$(ls "$cache_wheels"/$wheel_glob 2>/dev/null | head -n1 || true)
if [[ -n "$wheel" ]]; then
  log "stage 4/5: wheel cached ($(basename "$wheel"))"
else
  log "stage 4/5: building the gfootball wheel (prebuilt engine)"
  fetch_sdist
  eng="$sdist_dir/third_party/gfootball_engine"
  mkdir -p "$eng/lib"
  cp -f "$libgame_so" "$eng/lib/prebuilt_gameplayfootball.so"
  # Packaged as data of gfootball_engine, so it lands beside _gameplayfootball.so.
  cp -f "$boost_py_so" "$eng/$BOOST_PY_SONAME"
  # Leftovers of the cmake build would be packed too.
  (cd "$eng" && rm -rf CMakeFiles CMakeCache.txt Makefile cmake_install.cmake ./*.a libgame.so _gameplayfootball.so)
  "$py" -c 'import setuptools, wheel' 2>/dev/null \
    || "$py" -m pip install --quiet -c "$constraints" setuptools wheel \
    || die "could not install setuptools/wheel into the venv"
  rm -rf "$build/wheelhouse" "$sdist_dir/build"
  (cd "$sdist_dir" && GFOOTBALL_USE_PREBUILT_SO=1 "$py" -m pip wheel --quiet --no-deps --no-build-isolation \
      -w "$build/wheelhouse" . >"$build/wheel.log" 2>&1) \
    || { tail -n 30 "$build/wheel.log" >&2; die "building the gfootball wheel failed (log: $build/wheel.log)"; }
  built=$(ls "$build"/wheelhouse/$wheel_glob 2>/dev/null | head -n1 || true)
  [[ -n "$built" ]] || die "pip wheel produced no $wheel_glob in $build/wheelhouse"
  "$py" - "$built" "$BOOST_PY_SONAME" <<'PY' || die "the built wheel lacks the engine or Boost.Python"
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for need in ('gfootball_engine/_gameplayfootball.so', 'gfootball_engine/' + sys.argv[2]):
    assert need in names, need
PY
  cp -f "$built" "$cache_wheels/$(basename "$built").tmp"
  mv -f "$cache_wheels/$(basename "$built").tmp" "$cache_wheels/$(basename "$built")"
  wheel="$cache_wheels/$(basename "$built")"
fi

# ---------------------------------------------------------------------------------------------
# 5. Install into the venv, with the repo's pins (numpy 1.22.4, gym 0.25.2, opencv < 4.12, ...).
log "stage 5/5: pip install $(basename "$wheel") -c requirements/constraints.txt"
# gfootball 2.10.2 imports six without declaring it.
"$py" -m pip install --quiet -c "$constraints" "$wheel" six \
  || die "pip could not install $(basename "$wheel") with $constraints (a dependency may need a pin there)"
if [[ "$had_gfootball" == 1 ]]; then  # A broken install of the same version: replace its files.
  "$py" -m pip install --quiet --force-reinstall --no-deps "$wheel" || die "pip could not reinstall $(basename "$wheel")"
fi
smoke_check || {
  env -u LD_LIBRARY_PATH "$py" -c 'import gfootball.env as e; e.create_environment("academy_empty_goal_close", representation="simple115v2").reset()' || true
  die "gfootball installed but creating academy_empty_goal_close failed (see the traceback above)"
}
if [[ "${SEED_GRAPH_KEEP_BUILD:-0}" != 1 ]]; then rm -rf "$build"; fi
log "done in $((SECONDS - start)) s: gfootball $GFOOTBALL_VERSION works in $py"
