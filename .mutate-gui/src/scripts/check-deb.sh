#!/usr/bin/env bash
# Builds the .deb, installs it with dpkg -i, checks the installed dfc and
# dfstudio from /usr/bin work (arch presets found under /usr/share), removes it.
# Usage: scripts/check-deb.sh [BUILD_DIR]   (default build-deb; needs root for dpkg)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-deb}
export CCACHE_NOHASHDIR=1
if [ -f "$build/CMakeCache.txt" ]; then
  cmake "$build" >/dev/null  # reuse an existing build dir as configured
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDFC_BUILD_TESTS=OFF >/dev/null
fi
ninja -C "$build" -j"${JOBS:-2}" dfc dfstudio
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls -t "$build"/dataflow-studio_*.deb | head -1)
echo "== built $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb" | sed -n '/Depends/p'
dpkg-deb --contents "$deb" | awk '{print $6}'

if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net packaging/io.github.dataflow_studio.dfstudio.metainfo.xml
fi
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate packaging/io.github.dataflow_studio.dfstudio.desktop
fi

cleanup() { dpkg -r dataflow-studio >/dev/null 2>&1 || true; }
trap cleanup EXIT
dpkg -i "$deb" >/dev/null
# Run from elsewhere so nothing is found through the source tree.
out=$(mktemp -d)
cd "$out"
echo "== /usr/bin/dfc --version"; /usr/bin/dfc --version
echo "== /usr/bin/dfc compile --model logreg --db - --output-folder $out/x"
/usr/bin/dfc compile --model logreg --db - --output-folder "$out/x"
test -s "$out"/x/*.pef
echo "== /usr/bin/dfc compile --arch sn40l (preset from /usr/share/dataflow-studio/arch)"
/usr/bin/dfc compile --model logreg --db - --arch sn40l --output-folder "$out/y" >/dev/null
echo "== QT_QPA_PLATFORM=offscreen /usr/bin/dfstudio --version"
QT_QPA_PLATFORM=offscreen /usr/bin/dfstudio --version
echo "== LC_ALL=de_DE.UTF-8 /usr/bin/dfstudio --help (the German translation, found by locale)"
LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 LANGUAGE= QT_QPA_PLATFORM=offscreen /usr/bin/dfstudio --help | grep "Kompiliert Modelle"
rm -rf "$out"
echo "== package OK"
